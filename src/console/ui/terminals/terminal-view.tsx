import { useEffect, useRef, useState } from "preact/hooks";
import { Alert } from "../shared/use-action.tsx";
import { ConnectionStatus } from "./connection-status.tsx";
import { type BarKey, keyInput, withControl } from "./control-keys.ts";
import type { CellSize } from "./emulator-api.ts";
import { KeyBar } from "./key-bar.tsx";
import { PasteField } from "./paste-field.tsx";
import { type ConnectionState, TerminalConnection } from "./terminal-connection.ts";
import { useEmulator } from "./use-emulator.ts";
import { useFit } from "./use-fit.ts";
import { useVisibleHeight } from "./use-visible-height.ts";

export interface TerminalViewProps {
  /** The terminal shown; none: the emulator waits empty. */
  terminalId: string | null;
  /** The emulator's name for screen readers. */
  label: string;
  /** The emulator's size once it is drawn, and after each fit: what a new terminal is made with. */
  sized(size: CellSize): void;
}

/**
 * A terminal on the page: the emulator (loaded the first time), its socket (reconnected when it drops),
 * the key bar and paste field for a phone, and where the connection stands.
 */
export function TerminalView({ terminalId, label, sized }: TerminalViewProps) {
  const view = useRef<HTMLDivElement>(null);
  const screen = useRef<HTMLElement>(null);
  const [state, setState] = useState<ConnectionState | null>(null);
  const [notice, setNotice] = useState("");
  const [pasting, setPasting] = useState(false);
  const [control, setControl] = useState(false);
  // Read by the emulator's input listener, registered once.
  const connection = useRef<TerminalConnection | null>(null);
  const controlHeld = useRef(false);
  const holdControl = (held: boolean) => {
    controlHeld.current = held;
    setControl(held);
  };
  const type = (input: string) => {
    connection.current?.send(input);
    holdControl(false);
  };

  useVisibleHeight(view);
  const { emulator, problem } = useEmulator(screen, label, { readOnly: false }, (opened) => {
    opened.onInput((input) => type(controlHeld.current ? withControl(input) : input));
    sized(opened.fit());
  });
  useFit(emulator, screen, (size) => {
    sized(size);
    connection.current?.resize(size);
  });

  useEffect(() => {
    if (!emulator || !terminalId) return;
    emulator.reset();
    const opened = new TerminalConnection(terminalId, {
      // Each socket replays the recent output: drawn on a clean screen, not after what the last one drew.
      attached() {
        emulator.reset();
        opened.resize(emulator.size());
      },
      output: (bytes) => emulator.write(bytes),
      state: setState,
      refusedControl: setNotice,
    });
    connection.current = opened;
    opened.open();
    emulator.focus();
    return () => {
      opened.close();
      connection.current = null;
      setState(null);
    };
  }, [emulator, terminalId]);

  const press = (key: BarKey) => {
    if (!emulator) return;
    type(keyInput(key, { applicationCursor: emulator.applicationCursorKeys(), control: controlHeld.current }));
    emulator.focus();
  };
  const copy = async () => {
    const selected = emulator?.selection() ?? "";
    if (!selected) return setNotice("Select text in the terminal first.");
    try {
      await navigator.clipboard.writeText(selected);
      setNotice("Copied.");
    } catch {
      setNotice("This browser does not let the page copy here (it needs https).");
    }
  };
  const paste = async () => {
    try {
      emulator?.paste(await navigator.clipboard.readText());
      emulator?.focus();
    } catch {
      // No clipboard to read on plain http, or the reading was refused: the text is pasted into a field.
      setPasting(true);
    }
  };

  return (
    <div class="terminal-view" ref={view}>
      <Alert error={problem} />
      <ConnectionStatus state={state} />
      <section class="terminal-screen" ref={screen} aria-label={label} />
      {pasting && (
        <PasteField
          paste={(text) => {
            emulator?.paste(text);
            setPasting(false);
            emulator?.focus();
          }}
          cancel={() => setPasting(false)}
        />
      )}
      <p class="quiet terminal-notice" aria-live="polite">
        {notice}
      </p>
      <KeyBar
        control={control}
        toggleControl={() => {
          holdControl(!controlHeld.current);
          emulator?.focus();
        }}
        press={press}
        copy={copy}
        paste={paste}
      />
    </div>
  );
}

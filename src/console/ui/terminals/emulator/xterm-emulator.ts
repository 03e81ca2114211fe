import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import xtermCss from "@xterm/xterm/css/xterm.css" with { type: "text" };
import type { EmulatorFactory, EmulatorOptions, TerminalEmulator } from "../emulator-api.ts";
import { ConstructedStyles } from "../../shared/constructed-styles.ts";

/**
 * The terminal emulator (xterm.js with its fit addon), a script of its own that the console loads the
 * first time a terminal is opened: most pages never show one and never pay for it. It hands itself over
 * on `globalThis`.
 */
new ConstructedStyles(document).add(xtermCss);

/** Dark whatever the console's theme: what programs written for terminals expect. */
const THEME = { background: "#161615", foreground: "#ecece8", cursor: "#ecece8", selectionBackground: "#4a5a8a" };
const FONT = 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace';

function open(element: HTMLElement, label: string, { readOnly }: EmulatorOptions): TerminalEmulator {
  const terminal = new Terminal({
    theme: THEME,
    fontFamily: FONT,
    fontSize: 14,
    scrollback: 5_000,
    cursorBlink: !readOnly,
    disableStdin: readOnly,
    convertEol: readOnly,
  });
  const fitting = new FitAddon();
  terminal.loadAddon(fitting);
  const styles = new ConstructedStyles(document);
  styles.capture(() => terminal.open(element));
  terminal.textarea?.setAttribute("aria-label", label);
  const size = () => ({ cols: terminal.cols, rows: terminal.rows });
  return {
    write: (output) => terminal.write(output),
    reset: () => terminal.reset(),
    fit() {
      fitting.fit();
      return size();
    },
    size,
    applicationCursorKeys: () => terminal.modes.applicationCursorKeysMode,
    selection: () => terminal.getSelection(),
    focus: () => terminal.focus(),
    onInput: (listener) => void terminal.onData(listener),
    paste: (text) => terminal.paste(text),
    dispose() {
      terminal.dispose();
      styles.remove();
    },
  };
}

const factory: EmulatorFactory = { open };
globalThis.atriumTerminalEmulator = factory;

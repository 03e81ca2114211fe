import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";
import { failureText } from "../shared/failure-text.ts";
import type { EmulatorOptions, TerminalEmulator } from "./emulator-api.ts";
import { loadEmulator } from "./load-emulator.ts";

export interface OpenedEmulator {
  /** Null until the emulator's script has loaded and drawn it. */
  emulator: TerminalEmulator | null;
  /** Why it could not be loaded, as a sentence. */
  problem: string | null;
}

/**
 * An emulator drawn into `screen` once its script has loaded (the first terminal opened loads it), and
 * disposed with the component. `opened` is told it first, before it is handed back: to listen and fit.
 */
export function useEmulator(
  screen: RefObject<HTMLElement | null>,
  label: string,
  options: EmulatorOptions,
  opened: (emulator: TerminalEmulator) => void,
): OpenedEmulator {
  const [emulator, setEmulator] = useState<TerminalEmulator | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let drawn: TerminalEmulator | undefined;
    let current = true;
    loadEmulator().then(
      (factory) => {
        if (!current || !screen.current) return;
        drawn = factory.open(screen.current, label, options);
        opened(drawn);
        setEmulator(drawn);
      },
      (failure: unknown) => current && setProblem(`The terminal emulator could not be loaded: ${failureText(failure)}`),
    );
    return () => {
      current = false;
      drawn?.dispose();
    };
  }, []);
  return { emulator, problem };
}

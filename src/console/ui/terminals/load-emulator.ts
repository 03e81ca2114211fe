import type { EmulatorFactory } from "./emulator-api.ts";

/**
 * Where the server serves the emulator's script (src/console/console-assets.ts). Made at run time so
 * the bundler leaves the import alone: xterm.js is a script of its own, not part of the console's.
 */
const emulatorScript = () => new URL("/terminal-emulator.js", location.href).href;

let loading: Promise<EmulatorFactory> | undefined;

/** Loads the terminal emulator once, the first time a terminal is opened. */
export function loadEmulator(): Promise<EmulatorFactory> {
  loading ??= import(emulatorScript())
    .then(() => {
      if (!globalThis.atriumTerminalEmulator) throw new Error("the terminal emulator did not start");
      return globalThis.atriumTerminalEmulator;
    })
    .catch((failure: unknown) => {
      // The next terminal opened tries again.
      loading = undefined;
      throw failure;
    });
  return loading;
}

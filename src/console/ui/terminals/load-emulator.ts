import { lazyScript } from "../shared/lazy-script.ts";

/**
 * Loads the terminal emulator once, the first time a terminal is opened: xterm.js is a script of its
 * own (src/console/console-assets.ts serves it), not part of the console's.
 */
export const loadEmulator = lazyScript("/terminal-emulator.js", () => globalThis.atriumTerminalEmulator, "the terminal emulator");

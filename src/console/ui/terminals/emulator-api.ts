/** A terminal's size in character cells. */
export interface CellSize {
  cols: number;
  rows: number;
}

/** The terminal emulator on the page, as the lazily loaded script (emulator/) offers it. */
export interface TerminalEmulator {
  /** Output as the program wrote it. */
  write(output: Uint8Array | string): void;
  /** Clears the screen and its scrollback, before a replay of the recent output draws it again. */
  reset(): void;
  /** Fits the cells to the element; answers the size it came to. */
  fit(): CellSize;
  size(): CellSize;
  /** Whether the program asked for the application cursor keys (arrows then send `ESC O x`, not `ESC [ x`). */
  applicationCursorKeys(): boolean;
  /** The text selected in the emulator ("" when none). */
  selection(): string;
  focus(): void;
  /** Typed input (and pasted text, in bracketed-paste markers when the program asked for them) goes here. */
  onInput(listener: (input: string) => void): void;
  /** Pasted text, as the emulator passes it to the program. */
  paste(text: string): void;
  dispose(): void;
}

export interface EmulatorOptions {
  /**
   * Output to show, never input: an agent's command, which runs on pipes, not a PTY. Typing is ignored,
   * and a bare newline (no PTY turns it into CR LF) starts a new line.
   */
  readOnly: boolean;
}

/** What the emulator's script hands over once it has run. */
export interface EmulatorFactory {
  /** An emulator drawn into `element`, its input named `label` for screen readers. */
  open(element: HTMLElement, label: string, options: EmulatorOptions): TerminalEmulator;
}

declare global {
  /** Set by the emulator's script when it has loaded. */
  var atriumTerminalEmulator: EmulatorFactory | undefined;
}

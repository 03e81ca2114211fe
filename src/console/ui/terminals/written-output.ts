/** What to write to the screen to bring it to a command's latest output. */
export interface OutputStep {
  /** The screen must be cleared first: the output no longer begins with what it shows (its start was dropped). */
  clear: boolean;
  text: string;
}

/**
 * The output already written to an emulator. The server answers a command's whole output each time it is
 * read, so only what it adds is written (the screen is not redrawn, nor is its scroll position lost).
 */
export class WrittenOutput {
  private written = "";

  /** The step to `output`, which is then taken as written. */
  next(output: string): OutputStep {
    const step = output.startsWith(this.written) ? { clear: false, text: output.slice(this.written.length) } : { clear: true, text: output };
    this.written = output;
    return step;
  }
}

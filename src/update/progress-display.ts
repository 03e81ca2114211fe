import type { ApplyState } from "../schemas/update.ts";

const BAR_WIDTH = 30;

/**
 * Shows an apply as it goes: on a terminal one line redrawn in place, with a bar while downloading;
 * otherwise (a pipe, a log) one plain line per state, so the output reads well when captured.
 */
export class ProgressDisplay {
  private lastState: ApplyState | undefined;
  private drawn = false;

  constructor(
    private readonly terminal: boolean,
    private readonly write: (text: string) => void = (text) => void process.stdout.write(text),
  ) {}

  show(state: ApplyState, progress: number, message: string): void {
    if (this.terminal) {
      const percent = Math.round(Math.max(0, Math.min(1, progress)) * 100);
      const filled = Math.round((percent / 100) * BAR_WIDTH);
      const bar = state === "downloading" ? ` [${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(percent).padStart(3)}%` : "";
      const columns = process.stdout.columns ?? 100;
      this.write(`\r\x1b[K${`${state.padEnd(11)}${bar}  ${message}`.slice(0, Math.max(20, columns - 1))}`);
      this.drawn = true;
    } else if (state !== this.lastState) {
      this.write(`${state}: ${message}\n`);
    }
    this.lastState = state;
  }

  /** Ends the redrawn line so what follows starts on its own. */
  finish(): void {
    if (this.terminal && this.drawn) this.write("\n");
    this.drawn = false;
  }
}

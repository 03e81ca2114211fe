import type { Clock, ClockTimer } from "../../src/clock.ts";

interface Pending extends ClockTimer {
  at: number;
  order: number;
  run: () => void;
}

/**
 * A clock whose time moves only when the test says so: the server's timers (idle stop, held queue,
 * update health wait) fire on `advance`, at once, in the order they would have.
 */
export class ManualClock implements Clock {
  private nowMs = Date.UTC(2026, 0, 1);
  private readonly pending = new Set<Pending>();
  private created = 0;

  now(): number {
    return this.nowMs;
  }

  setTimeout(callback: () => void, ms: number): ClockTimer {
    const timer: Pending = { at: this.nowMs + Math.max(0, ms), order: this.created++, run: callback, unref: () => undefined };
    this.pending.add(timer);
    return timer;
  }

  clearTimeout(timer: ClockTimer | undefined): void {
    if (timer) this.pending.delete(timer as Pending);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /** Timers waiting to fire. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Moves time on by `ms`, firing each timer due on the way at its own time; a timer that a fired one
   * sets is fired too when it falls inside the step. Awaits a turn of the event loop after each, so
   * what a timer starts (a promise chain, a sleep ending) runs before the next.
   */
  async advance(ms: number): Promise<void> {
    const until = this.nowMs + ms;
    for (;;) {
      const next = [...this.pending].filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      this.pending.delete(next);
      this.nowMs = next.at;
      next.run();
      await Bun.sleep(0);
    }
    this.nowMs = until;
  }
}

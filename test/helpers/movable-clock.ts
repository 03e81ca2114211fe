import type { Clock, ClockTimer } from "../../src/clock.ts";

interface Pending extends ClockTimer {
  at: number;
  order: number;
  run: () => void;
  handle: ReturnType<typeof setTimeout>;
  unrefed: boolean;
}

/**
 * The real clock, which a test can also move on: timers fire in real time as the system clock's do,
 * and `advance` jumps ahead, firing at once, in order, the timers that fall due on the way. For a
 * server that must otherwise run as usual (plugins starting, probes answering) while a test passes
 * one time limit without waiting it out. A ManualClock, whose time moves only when told, stops
 * every other timer too.
 */
export class MovableClock implements Clock {
  private offsetMs = 0;
  private readonly pending = new Set<Pending>();
  private created = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  setTimeout(callback: () => void, ms: number): ClockTimer {
    const timer = { at: this.now() + Math.max(0, ms), order: this.created++, run: callback, unrefed: false } as Pending;
    timer.handle = setTimeout(() => this.fire(timer), Math.max(0, ms));
    timer.unref = () => {
      timer.unrefed = true;
      timer.handle.unref();
    };
    this.pending.add(timer);
    return timer;
  }

  clearTimeout(timer: ClockTimer | undefined): void {
    if (!timer) return;
    clearTimeout((timer as Pending).handle);
    this.pending.delete(timer as Pending);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /**
   * Moves time on by `ms` at once: each timer due by then fires, in the order it would have, with a
   * turn of the event loop after each; the rest keep their time, now nearer. What the fired timers
   * start counts from the new time (a health check they begin gets its whole time limit).
   */
  async advance(ms: number): Promise<void> {
    this.offsetMs += ms;
    for (;;) {
      const now = this.now();
      const next = [...this.pending].filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      this.fire(next);
      await Bun.sleep(0);
    }
    for (const timer of this.pending) {
      clearTimeout(timer.handle);
      timer.handle = setTimeout(() => this.fire(timer), Math.max(0, timer.at - this.now()));
      if (timer.unrefed) timer.handle.unref();
    }
  }

  private fire(timer: Pending): void {
    if (!this.pending.delete(timer)) return;
    clearTimeout(timer.handle);
    timer.run();
  }
}

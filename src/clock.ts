/** A pending timer; `unref` lets the process exit while it waits (the system clock's timers have it). */
export interface ClockTimer {
  unref?(): void;
}

/**
 * Time as the server's timers see it: the idle stop of agents, the held queue's next look, and an
 * update's health wait and rollback. Injected, so tests of those move time on instead of waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout> | undefined),
  sleep: (ms) => Bun.sleep(ms),
};

/** Waits `ms` on `clock`; rejects with `reason` at once if `signal` aborts first. */
export function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal, reason: () => Error): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const abort = () => {
      clock.clearTimeout(timer);
      reject(reason());
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    }, ms);
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  });
}

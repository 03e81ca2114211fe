import { onReachable } from "./connection.ts";

/** Resolves at `wake`'s first call or when `signal` aborts, whichever comes first; `watch` starts the watching and returns its end. */
export function until(signal: AbortSignal, watch: (wake: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      unwatch();
      signal.removeEventListener("abort", wake);
      resolve();
    };
    const unwatch = watch(wake);
    signal.addEventListener("abort", wake, { once: true });
    if (signal.aborted) wake();
  });
}

/** Resolves after `ms`, sooner when the network comes back or a request gets through to the server, or when `signal` aborts. */
export const pauseUntilServerReturns = (ms: number, signal: AbortSignal): Promise<void> =>
  until(signal, (wake) => {
    const timer = setTimeout(wake, ms);
    addEventListener("online", wake);
    const stopReachable = onReachable(wake);
    return () => {
      clearTimeout(timer);
      removeEventListener("online", wake);
      stopReachable();
    };
  });

import { ApiError } from "./api.ts";
import { UnreachableError } from "./connection.ts";
import { retryDelay } from "./event-bus.ts";
import { pauseUntilServerReturns } from "./until-server-returns.ts";

/**
 * A read's waits after failures that pass by themselves: 1 s, doubling, at most 5 s, so a page is
 * back within seconds of its server; each wait ends early when the network or the server returns.
 */
const READ_DELAYS = { firstMs: 1_000, longestMs: 5_000, steadyMs: 0 };

/** A failure that may pass by itself: the server not reached, or answering 5xx (starting, migrating, behind a proxy that lost it). */
export const passes = (failure: unknown) => failure instanceof UnreachableError || (failure instanceof ApiError && failure.status >= 500);

/**
 * Reads until the read succeeds, trying again after each failure that passes by itself (each told to
 * `failed`, so the page can say it meanwhile); a failure that does not pass (a 404) is thrown, and so
 * is `signal`'s abort (the page went), as an AbortError.
 */
export async function readRetrying<T>(read: () => Promise<T>, signal: AbortSignal, failed: (failure: unknown) => void): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      return await read();
    } catch (failure) {
      if (signal.aborted || !passes(failure)) throw failure;
      failed(failure);
    }
    await pauseUntilServerReturns(retryDelay(READ_DELAYS, failures), signal);
    if (signal.aborted) throw new DOMException("The page no longer needs the read", "AbortError");
  }
}

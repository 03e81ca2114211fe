import { api, storedToken } from "./api.ts";
import { failureText } from "./failure-text.ts";
import { onReachable, reachingFetch } from "./connection.ts";
import { EventBus, type EventSubscription, type StreamEnvironment } from "./event-bus.ts";

export type { StreamedEvent } from "./event-bus.ts";

const pageVisible = () => document.visibilityState !== "hidden";

/** Resolves at `wake`'s first call or when `signal` aborts, whichever comes first; `watch` starts the watching and returns its end. */
function until(signal: AbortSignal, watch: (wake: () => void) => () => void): Promise<void> {
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

/**
 * The page the bus runs in. The stream is read with fetch, whose bearer header EventSource cannot send.
 * While the page is hidden (another tab, a locked phone) no stream is held: the server then knows nobody
 * watches (it pushes a notification instead, src/push/), the phone's radio rests, and the page catches up
 * from its last event when shown. A wait after a drop ends early when the network comes back or a request
 * gets through to the server.
 */
const browserPage: StreamEnvironment = {
  open: (query, lastEventId, signal) =>
    reachingFetch(`/v1/events/stream?${query}`, {
      headers: { authorization: `Bearer ${storedToken() ?? ""}`, ...(lastEventId === null ? {} : { "last-event-id": lastEventId }) },
      signal,
    }),
  whenShown: (signal) =>
    pageVisible()
      ? Promise.resolve()
      : until(signal, (wake) => {
          const shown = () => pageVisible() && wake();
          document.addEventListener("visibilitychange", shown);
          return () => document.removeEventListener("visibilitychange", shown);
        }),
  onHidden(listener) {
    const hidden = () => pageVisible() || listener();
    document.addEventListener("visibilitychange", hidden);
    return () => document.removeEventListener("visibilitychange", hidden);
  },
  pause: (ms, signal) =>
    until(signal, (wake) => {
      const timer = setTimeout(wake, ms);
      addEventListener("online", wake);
      const stopReachable = onReachable(wake);
      return () => {
        clearTimeout(timer);
        removeEventListener("online", wake);
        stopReachable();
      };
    }),
  nextFrame(flush) {
    const frame = requestAnimationFrame(flush);
    return () => cancelAnimationFrame(frame);
  },
  readAgain: () => location.reload(),
  report: (message, failure) => console.error(`${message}:`, failure),
};

/** The console's event bus: 1 s after a first drop, twice that after each failure in a row, at most 15 s. */
const bus = new EventBus(browserPage, { firstMs: 1_000, longestMs: 15_000, steadyMs: 10_000 });

/** Follows what the subscription names from its cursor; returns the function that stops it. */
export const subscribe = (subscription: EventSubscription): (() => void) => bus.subscribe(subscription);

/** The event cursor now: what happens after it, a stream opened from it brings. */
export const readEventCursor = async (): Promise<number> => (await api<{ cursor: number }>("GET", "/v1/events/cursor")).cursor;

/**
 * Follows the subscription from the event cursor read first, then runs `read`: a change made while the
 * read runs comes as an event. A failure of either read is told to `onFailure`. Returns the function that
 * stops following (at any point).
 */
export function followThenRead(
  subscription: Omit<EventSubscription, "after">,
  read: () => Promise<unknown>,
  onFailure: (sentence: string) => void,
): () => void {
  let unsubscribe = () => {};
  let stopped = false;
  const start = async () => {
    const after = await readEventCursor();
    if (stopped) return;
    unsubscribe = subscribe({ ...subscription, after });
    await read();
  };
  start().catch((failure: unknown) => onFailure(failureText(failure)));
  return () => {
    stopped = true;
    unsubscribe();
  };
}

import { api, storedToken } from "./api.ts";
import { failureText } from "./failure-text.ts";
import { reachingFetch } from "./connection.ts";
import { pauseUntilServerReturns, until } from "./until-server-returns.ts";
import { readRetrying } from "./retrying-read.ts";
import { EventBus, type EventSubscription, type StreamedEvent, type StreamEnvironment } from "./event-bus.ts";

export type { StreamedEvent } from "./event-bus.ts";

const pageVisible = () => document.visibilityState !== "hidden";

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
  pause: pauseUntilServerReturns,
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
 * Runs `work` while following `kinds` from the cursor read first, so what is reported before the stream opens
 * is replayed, not missed; stops following when the work ends. What the events show is a courtesy (progress):
 * the work's own answer says how it went, so a problem with them is only logged by the bus.
 */
export async function whileFollowing<T>(kinds: readonly string[], onEvents: (events: StreamedEvent[]) => void, work: () => Promise<T>): Promise<T> {
  const stop = subscribe({ kinds, after: await readEventCursor(), onEvents, onProblem: () => {} });
  try {
    return await work();
  } finally {
    stop();
  }
}

/**
 * Follows the subscription from the event cursor read first, then runs `read`: a change made while the
 * read runs comes as an event. A failure of either read is told to `onFailure`, and one that passes by
 * itself is tried again. Returns the function that stops following (at any point).
 */
export function followThenRead(
  subscription: Omit<EventSubscription, "after">,
  read: () => Promise<unknown>,
  onFailure: (sentence: string) => void,
): () => void {
  let unsubscribe = () => {};
  const stopped = new AbortController();
  const tell = (failure: unknown) => onFailure(failureText(failure));
  // Each read is tried again until the server answers (a page opened while it was down comes back by itself).
  const start = async () => {
    const after = await readRetrying(readEventCursor, stopped.signal, tell);
    unsubscribe = subscribe({ ...subscription, after });
    await readRetrying(read, stopped.signal, tell);
  };
  start().catch((failure: unknown) => stopped.signal.aborted || tell(failure));
  return () => {
    stopped.abort();
    unsubscribe();
  };
}

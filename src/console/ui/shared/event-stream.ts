import type { EventRecord } from "../../../schemas/events.ts";
import { storedToken } from "./api.ts";
import { reachingFetch } from "./connection.ts";

/** An event record as the stream sends it (the spec's Event record). */
export type StreamedEvent = EventRecord;

/** How long to wait before opening a dropped stream again. */
const RECONNECT_MS = 1_000;

const pageVisible = () => document.visibilityState !== "hidden";

/** Resolves when the page is visible (at once if it is), or when `stopped` aborts. */
function whenVisible(stopped: AbortSignal): Promise<void> {
  if (pageVisible()) return Promise.resolve();
  return new Promise((resolve) => {
    const shown = () => {
      if (!pageVisible() && !stopped.aborted) return;
      document.removeEventListener("visibilitychange", shown);
      stopped.removeEventListener("abort", shown);
      resolve();
    };
    document.addEventListener("visibilitychange", shown);
    stopped.addEventListener("abort", shown, { once: true });
  });
}

/**
 * Follows `GET /v1/events/stream` with the bearer header (which EventSource cannot send), parsing the
 * frames as they come, and opens it again after a drop with `Last-Event-ID`, so nothing is missed.
 * While the page is hidden (another tab, a locked phone) the stream is closed: the server then knows
 * nobody watches (it pushes a notification instead, src/push/), the phone's radio rests, and the page
 * catches up from its last event when it is shown again. Returns the function that stops it.
 */
export function followEvents(query: string, onEvent: (event: StreamedEvent) => void): () => void {
  const stopped = new AbortController();
  let connection = new AbortController();
  let lastEventId: string | undefined;
  const hidden = () => {
    if (!pageVisible()) connection.abort();
  };
  document.addEventListener("visibilitychange", hidden);
  const run = async () => {
    while (!stopped.signal.aborted) {
      await whenVisible(stopped.signal);
      if (stopped.signal.aborted) return;
      connection = new AbortController();
      try {
        const response = await reachingFetch(`/v1/events/stream?${query}`, {
          headers: { authorization: `Bearer ${storedToken() ?? ""}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
          signal: AbortSignal.any([stopped.signal, connection.signal]),
        });
        // A cursor past the newest event (409: the server's data was reset or restored) or behind the
        // log's horizon (410: what followed it was compacted away while the page slept). Resuming would
        // skip events; only reading everything again is right.
        if (response.status === 409 || response.status === 410) {
          location.reload();
          return;
        }
        if (!response.ok || !response.body) throw new Error(`the event stream answered ${response.status}`);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end = buffer.indexOf("\n\n");
          while (end !== -1) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame
              .split("\n")
              .filter((line) => line.startsWith("data:"))
              .map((line) => line.slice(5).trimStart())
              .join("\n");
            const id = frame.split("\n").find((line) => line.startsWith("id:"));
            if (id) lastEventId = id.slice(3).trim();
            if (data) onEvent(JSON.parse(data) as StreamedEvent);
            end = buffer.indexOf("\n\n");
          }
        }
      } catch {
        // dropped, refused, or closed because the page was hidden: open again below
      }
      if (!stopped.signal.aborted && pageVisible()) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  };
  void run();
  return () => {
    stopped.abort();
    document.removeEventListener("visibilitychange", hidden);
  };
}

/**
 * `followEvents`, handing the events over once per animation frame in arrival order: a reply streaming
 * many deltas a second is drawn once per frame, not once per event.
 */
export function followEventsByFrame(query: string, onEvents: (events: StreamedEvent[]) => void): () => void {
  let pending: StreamedEvent[] = [];
  let frame = 0;
  const flush = () => {
    frame = 0;
    const events = pending;
    pending = [];
    onEvents(events);
  };
  const stop = followEvents(query, (event) => {
    pending.push(event);
    if (frame === 0) frame = requestAnimationFrame(flush);
  });
  return () => {
    stop();
    if (frame !== 0) cancelAnimationFrame(frame);
  };
}

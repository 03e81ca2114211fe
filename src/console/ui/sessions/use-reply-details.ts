import { useEffect, useRef, useState } from "preact/hooks";
import type { TranscriptDetailsPage } from "../../../schemas/transcript.ts";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { readRetrying } from "../shared/retrying-read.ts";
import type { DetailEntry } from "./reply-segments.ts";

/** Read this far ahead of the screen, so a reply's cards are there when it scrolls in. */
const AHEAD_MARGIN = "600px 0px";

/** Every entry of a reply's details, read page by page (at most 200 a page) to the end. */
async function readAllDetails(sessionId: string, itemId: string): Promise<DetailEntry[]> {
  const entries: DetailEntry[] = [];
  let after: string | null = null;
  do {
    const query: string = after ? `?limit=200&after=${encodeURIComponent(after)}` : "?limit=200";
    const page: TranscriptDetailsPage = await api<TranscriptDetailsPage>("GET", `/v1/sessions/${sessionId}/transcript/${itemId}/details${query}`);
    entries.push(...page.entries);
    // While the reply generates, nextAfter stays a cursor to poll: stop at the end of what exists now.
    after = page.entries.length > 0 ? page.nextAfter : null;
  } while (after);
  return entries;
}

/** Reads started with the session's own read, before its replies are drawn, taken by the first read of each. */
const started = new Map<string, Promise<DetailEntry[]>>();

/** Starts reading these replies' details now (the newest, where the page opens); each is taken once. */
export function readDetailsAhead(sessionId: string, itemIds: string[]): void {
  for (const itemId of itemIds) {
    const read = readAllDetails(sessionId, itemId);
    // A read nobody takes (the page closed first) must not report an unhandled failure.
    read.catch(() => {});
    started.set(itemId, read);
  }
}

/** The read started ahead for this reply, if any and if nothing changed since (else it may be stale). */
function takeStarted(itemId: string, changes: number): Promise<DetailEntry[]> | undefined {
  const read = started.get(itemId);
  started.delete(itemId);
  return changes === 0 ? read : undefined;
}

/** Reads started ahead that no reply took (the page closed first) are dropped with the page. */
export function forgetDetailsAhead(): void {
  started.clear();
}

export interface ReplyDetails {
  /** null until read. */
  entries: DetailEntry[] | null;
  error: string | null;
}

/**
 * A reply's thoughts and tool calls: read once the reply comes near the screen (a long session's page
 * reads only what is looked at; `eager` for the newest, read at once), and again each time the session
 * says they changed (`changes` counts that). Reads never overlap: changes during a read are read once
 * more after it. A read that fails while the server cannot be reached says so and is tried again
 * until it answers.
 */
export function useReplyDetails(sessionId: string, itemId: string, changes: number, element: { current: Element | null }, eager: boolean): ReplyDetails {
  // The newest replies are where the page opens: read at once, not a frame after they are drawn.
  const [near, setNear] = useState(eager);
  const [details, setDetails] = useState<ReplyDetails>({ entries: null, error: null });
  const reading = useRef<{ busy: boolean; again: boolean; life: AbortController }>({ busy: false, again: false, life: new AbortController() });

  useEffect(() => {
    const target = element.current;
    if (!target || near) return;
    const observer = new IntersectionObserver((seen) => seen.some((entry) => entry.isIntersecting) && setNear(true), { rootMargin: AHEAD_MARGIN });
    observer.observe(target);
    return () => observer.disconnect();
  }, [near]);

  useEffect(() => {
    const state = reading.current;
    return () => state.life.abort();
  }, []);

  useEffect(() => {
    if (!near) return;
    const state = reading.current;
    if (state.busy) {
      state.again = true;
      return;
    }
    const { signal } = state.life;
    const failed = (failure: unknown) => signal.aborted || setDetails((current) => ({ ...current, error: failureText(failure) }));
    const read = () => {
      state.busy = true;
      state.again = false;
      let started = takeStarted(itemId, changes);
      const attempt = () => {
        const taken = started;
        started = undefined;
        return taken ?? readAllDetails(sessionId, itemId);
      };
      // A read that failed offline is tried again when the server is back (or after a while).
      readRetrying(attempt, signal, failed)
        .then((entries) => signal.aborted || setDetails({ entries, error: null }), failed)
        .finally(() => {
          state.busy = false;
          if (state.again && !signal.aborted) read();
        });
    };
    read();
  }, [near, sessionId, itemId, changes]);

  return details;
}

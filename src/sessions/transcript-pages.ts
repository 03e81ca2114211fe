import type { TranscriptEntry, TranscriptRepository } from "../store/transcript-repository.ts";

/*
 * Cursors of transcript detail pages (checked by TranscriptDetailsQuery): `a<position>` reads forwards
 * from after a position, `b<position>` backwards from before one, `latest` opens the newest page.
 * Clients treat them as opaque.
 */

export interface DetailsPage {
  entries: TranscriptEntry[];
  nextAfter: string | null;
  previousBefore: string | null;
}

/**
 * One page of an item's details. `nextAfter` is null once nothing follows and the item has finished;
 * while it is still generating, it stays a cursor to poll for what comes next.
 */
export function readDetailsPage(transcript: TranscriptRepository, itemId: string, cursor: string | undefined, generating: boolean, limit: number): DetailsPage {
  const entries = pageEntries(transcript, itemId, cursor ?? "a0", limit);
  const first = entries[0];
  const last = entries.at(-1);
  const lastPosition = last?.position ?? startPosition(cursor);
  const more = transcript.hasAfter(itemId, lastPosition);
  return {
    entries,
    nextAfter: more || generating ? `a${lastPosition}` : null,
    previousBefore: first && transcript.hasBefore(itemId, first.position) ? `b${first.position}` : null,
  };
}

function pageEntries(transcript: TranscriptRepository, itemId: string, cursor: string, limit: number): TranscriptEntry[] {
  if (cursor === "latest") return transcript.before(itemId, Number.MAX_SAFE_INTEGER, limit);
  const position = Number(cursor.slice(1));
  return cursor.startsWith("b") ? transcript.before(itemId, position, limit) : transcript.after(itemId, position, limit);
}

/** Where an empty page leaves a reader: polling goes on from the same place. */
function startPosition(cursor: string | undefined): number {
  if (!cursor || cursor === "latest") return 0;
  return cursor.startsWith("a") ? Number(cursor.slice(1)) : Math.max(0, Number(cursor.slice(1)) - 1);
}

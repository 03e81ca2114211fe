import type { Store } from "./database.ts";
import type { ThoughtDetails, ToolCallDetails } from "../schemas/transcript.ts";

export interface TranscriptEntry {
  key: string;
  position: number;
  revision: number;
  payload: ToolCallDetails | ThoughtDetails;
}

interface Row {
  key: string;
  position: number;
  revision: number;
  payload: string;
}

const toEntry = (row: Row): TranscriptEntry => ({ key: row.key, position: row.position, revision: row.revision, payload: JSON.parse(row.payload) });

/**
 * The details behind a conversation item (thoughts, tool calls), one entry per key in the order
 * they first appeared. An entry changed in place keeps its position and gets a new revision.
 */
export class TranscriptRepository {
  constructor(private readonly store: Store) {}

  /** Writes an entry's payload; returns where it sits and its revision. */
  put(sessionId: string, itemId: string, key: string, payload: ToolCallDetails | ThoughtDetails): { position: number; revision: number } {
    const json = JSON.stringify(payload);
    const existing = this.store.db
      .query<{ position: number; revision: number }, [string, string]>("SELECT position, revision FROM transcript_entries WHERE item_id = ? AND key = ?")
      .get(itemId, key);
    if (existing) {
      this.store.db.query("UPDATE transcript_entries SET payload = ?, revision = revision + 1 WHERE item_id = ? AND key = ?").run(json, itemId, key);
      return { position: existing.position, revision: existing.revision + 1 };
    }
    const last = this.store.db
      .query<{ position: number | null }, [string]>("SELECT MAX(position) AS position FROM transcript_entries WHERE item_id = ?")
      .get(itemId);
    const position = (last?.position ?? 0) + 1;
    this.store.db
      .query("INSERT INTO transcript_entries (session_id, item_id, key, position, revision, payload) VALUES (?, ?, ?, ?, 1, ?)")
      .run(sessionId, itemId, key, position, json);
    return { position, revision: 1 };
  }

  /** Adds text to a string field of an entry's payload without reading the payload back. */
  appendText(itemId: string, key: string, field: string, text: string): { position: number; revision: number } | undefined {
    const path = `$.${field}`;
    return (
      this.store.db
        .query<{ position: number; revision: number }, [string, string, string, string, string]>(
          `UPDATE transcript_entries SET payload = json_set(payload, ?, coalesce(json_extract(payload, ?), '') || ?), revision = revision + 1
           WHERE item_id = ? AND key = ? RETURNING position, revision`,
        )
        .all(path, path, text, itemId, key)[0] ?? undefined
    );
  }

  get(itemId: string, key: string): TranscriptEntry | undefined {
    const row = this.store.db
      .query<Row, [string, string]>("SELECT key, position, revision, payload FROM transcript_entries WHERE item_id = ? AND key = ?")
      .get(itemId, key);
    return row ? toEntry(row) : undefined;
  }

  /** Entries after a position, oldest first. */
  after(itemId: string, position: number, limit: number): TranscriptEntry[] {
    return this.store.db
      .query<Row, [string, number, number]>(
        "SELECT key, position, revision, payload FROM transcript_entries WHERE item_id = ? AND position > ? ORDER BY position LIMIT ?",
      )
      .all(itemId, position, limit)
      .map(toEntry);
  }

  /** The last `limit` entries before a position, oldest first. */
  before(itemId: string, position: number, limit: number): TranscriptEntry[] {
    return this.store.db
      .query<Row, [string, number, number]>(
        "SELECT key, position, revision, payload FROM transcript_entries WHERE item_id = ? AND position < ? ORDER BY position DESC LIMIT ?",
      )
      .all(itemId, position, limit)
      .map(toEntry)
      .reverse();
  }

  /** The item's revision: every change to one of its entries counts once. */
  revision(itemId: string): number {
    return (
      this.store.db.query<{ total: number | null }, [string]>("SELECT SUM(revision) AS total FROM transcript_entries WHERE item_id = ?").get(itemId)?.total ?? 0
    );
  }

  /** Whether entries exist past `position` (after) or before it. */
  hasAfter(itemId: string, position: number): boolean {
    return this.store.db.query("SELECT 1 FROM transcript_entries WHERE item_id = ? AND position > ? LIMIT 1").get(itemId, position) !== null;
  }

  hasBefore(itemId: string, position: number): boolean {
    return this.store.db.query("SELECT 1 FROM transcript_entries WHERE item_id = ? AND position < ? LIMIT 1").get(itemId, position) !== null;
  }
}

import type { Store } from "./database.ts";
import type { Attachment, ConversationItem } from "../schemas/sessions.ts";

interface Row {
  seq: number;
  id: string;
  role: ConversationItem["role"];
  message_id: string | null;
  text: string;
  created_at: string;
  is_generating: number;
  attachments: string;
  stop_reason: string | null;
}

const toItem = (row: Row): ConversationItem & { seq: number } => ({
  seq: row.seq,
  id: row.id,
  role: row.role,
  messageId: row.message_id,
  text: row.text,
  createdAt: row.created_at,
  isGenerating: row.is_generating === 1,
  attachments: JSON.parse(row.attachments) as Attachment[],
  stopReason: row.stop_reason,
});

export interface ConversationPage {
  items: ConversationItem[];
  /** The position of the oldest item returned, when older ones exist. */
  olderThan: number | null;
}

/**
 * An item's columns. A streamed reply's text is its `session.message.delta` events joined: it is written
 * once, as those events, and never rewritten (rewriting the row on every delta made a reply's writes
 * grow with its square). Items stored before that, and prompts, keep their text in the row.
 */
// `+conversation_items.id` drops the column's TEXT affinity, which would otherwise be applied to the
// indexed expression and keep SQLite from using events_delta_by_item (a scan of every delta).
const JOINED_DELTAS = `COALESCE((SELECT group_concat(json_extract(payload, '$.text'), '' ORDER BY global_id)
    FROM events WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = +conversation_items.id), '')`;
const ITEM_COLUMNS = `seq, id, role, message_id, created_at, is_generating, attachments, stop_reason,
  CASE WHEN text_in_deltas = 1 THEN ${JOINED_DELTAS} ELSE text END AS text`;

/** A session's conversation, in order (`seq`), paged from the newest backwards. */
export class ConversationRepository {
  constructor(private readonly store: Store) {}

  /** Adds an item; `streamed`: its text is the delta events that follow (a reply), not the row's. */
  append(sessionId: string, item: ConversationItem, streamed = false): void {
    const next = this.store.db.query<{ seq: number | null }, [string]>("SELECT MAX(seq) AS seq FROM conversation_items WHERE session_id = ?").get(sessionId);
    this.store.db
      .query(
        `INSERT INTO conversation_items (session_id, seq, id, role, message_id, text, created_at, is_generating, attachments, stop_reason, text_in_deltas)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sessionId,
        (next?.seq ?? 0) + 1,
        item.id,
        item.role,
        item.messageId,
        item.text,
        item.createdAt,
        item.isGenerating ? 1 : 0,
        JSON.stringify(item.attachments),
        item.stopReason,
        streamed ? 1 : 0,
      );
  }

  finish(itemId: string, stopReason: string): void {
    this.store.db.query("UPDATE conversation_items SET is_generating = 0, stop_reason = ? WHERE id = ?").run(stopReason, itemId);
  }

  get(itemId: string): ConversationItem | undefined {
    return this.itemOf(this.store.db.query<Row, [string]>(`SELECT ${ITEM_COLUMNS} FROM conversation_items WHERE id = ?`).get(itemId));
  }

  /** The item when it belongs to the session. */
  find(sessionId: string, itemId: string): ConversationItem | undefined {
    return this.itemOf(
      this.store.db.query<Row, [string, string]>(`SELECT ${ITEM_COLUMNS} FROM conversation_items WHERE id = ? AND session_id = ?`).get(itemId, sessionId),
    );
  }

  private itemOf(row: Row | null): ConversationItem | undefined {
    if (!row) return undefined;
    const { seq: _seq, ...item } = toItem(row);
    return item;
  }

  /** The whole conversation, oldest first. */
  all(sessionId: string): ConversationItem[] {
    return this.store.db
      .query<Row, [string]>(`SELECT ${ITEM_COLUMNS} FROM conversation_items WHERE session_id = ? ORDER BY seq`)
      .all(sessionId)
      .map((row) => this.itemOf(row)!);
  }

  page(sessionId: string, before: number | null, limit: number): ConversationPage {
    const rows = this.store.db
      .query<Row, [string, number, number]>(`SELECT ${ITEM_COLUMNS} FROM conversation_items WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(sessionId, before ?? Number.MAX_SAFE_INTEGER, limit + 1);
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit).reverse().map(toItem);
    return { items: page.map(({ seq: _seq, ...item }) => item), olderThan: hasMore && page[0] ? page[0].seq : null };
  }

  /**
   * Before compaction removes the deltas through `globalId`: each finished reply with deltas among them
   * gets its whole text into its row, and is read from there from now on (its later deltas stay events).
   */
  foldRepliesThrough(globalId: number): void {
    this.store.db
      .query(
        `UPDATE conversation_items SET text = ${JOINED_DELTAS}, text_in_deltas = 0
         WHERE text_in_deltas = 1 AND is_generating = 0 AND id IN
           (SELECT json_extract(payload, '$.itemId') FROM events WHERE kind = 'session.message.delta' AND global_id <= ?)`,
      )
      .run(globalId);
  }

  /** The first delta of a reply still being written: compaction stops below it (null: none is). */
  firstDeltaOfGenerating(): number | null {
    const row = this.store.db
      .query<{ first: number | null }, []>(
        `SELECT MIN((SELECT MIN(global_id) FROM events WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = +conversation_items.id)) AS first
         FROM conversation_items WHERE is_generating = 1 AND text_in_deltas = 1`,
      )
      .get();
    return row?.first ?? null;
  }

  /** Items still marked generating (a turn the server did not see end), by session. */
  generating(): Array<{ sessionId: string; itemId: string }> {
    return this.store.db
      .query<{ session_id: string; id: string }, []>("SELECT session_id, id FROM conversation_items WHERE is_generating = 1")
      .all()
      .map((row) => ({ sessionId: row.session_id, itemId: row.id }));
  }
}

import type { Store } from "./database.ts";
import { InvalidInputError } from "../errors.ts";
import { decodeCursor, NOT_OUR_CURSOR, pageOf, type Page } from "./page-cursor.ts";
import { ftsQuery, MATCH_CLOSE, MATCH_OPEN, snippetRanges, type SnippetRanges } from "./fts-query.ts";
import { SESSION_NAME_HOLDS, sessionConditions, type SessionFilter, type StoredSession } from "./session-repository.ts";

/** Where a session's conversation matched: its best-ranked item and a snippet of it. */
export interface ConversationMatch extends SnippetRanges {
  itemId: string;
}

export interface FoundSession {
  session: StoredSession;
  match: ConversationMatch | null;
}

interface Row {
  data: string;
  id: string;
  updated_at: string;
  named: number;
  score: number | null;
  item_id: string | null;
  text_row: number | null;
}

/** Words of context a snippet holds around its matched words. */
const SNIPPET_TOKENS = 16;

/**
 * Finds sessions by their title, their project's name or their conversation (conversation_text, the
 * full-text index the triggers of migration 15 keep). Sessions whose title or project name holds the
 * text come first, newest activity first (as the list); then those only their conversation matched,
 * best first: by the bm25 rank of their best-matching item (prompt or reply). Paged by keyset over
 * that order: (named or not, then updatedAt or rank, then id).
 */
export class SessionSearchRepository {
  constructor(private readonly store: Store) {}

  search(filter: SessionFilter, text: string, limit: number, cursor?: string): Page<FoundSession> {
    const match = ftsQuery(text);
    const { where, values } = sessionConditions(filter);
    // Each session's best-ranked matching item (rank: bm25, lower is better); bare columns of a MIN() come from the row that has it.
    const hits = match
      ? `LEFT JOIN (SELECT rows.session_id, MIN(matched.rank) AS score, rows.item_id, matched.rowid AS text_row
           FROM (SELECT rowid, rank FROM conversation_text WHERE conversation_text MATCH ?) AS matched
           JOIN conversation_text_rows AS rows ON rows.id = matched.rowid GROUP BY rows.session_id) AS hits ON hits.session_id = sessions.id`
      : "LEFT JOIN (SELECT NULL AS session_id, NULL AS score, NULL AS item_id, NULL AS text_row) AS hits ON 0";
    const found = `SELECT sessions.id, sessions.updated_at, sessions.data, ${SESSION_NAME_HOLDS} AS named, hits.score, hits.item_id, hits.text_row
      FROM sessions ${hits} WHERE ${where.join(" AND ")}`;
    const bound = [text, text, ...(match ? [match] : []), ...values];
    const after = cursor === undefined ? { sql: "", values: [] } : this.after(cursor);
    const rows = this.store.db
      .query<Row, Array<string | number>>(
        `SELECT * FROM (${found}) WHERE (named OR score IS NOT NULL) ${after.sql}
         ORDER BY named DESC, CASE WHEN named THEN updated_at END DESC, CASE WHEN named THEN NULL ELSE score END, id DESC LIMIT ?`,
      )
      .all(...bound, ...after.values, limit + 1);
    return pageOf(rows, limit, keyOf, (row) => ({
      session: JSON.parse(row.data) as StoredSession,
      match: match && row.item_id !== null && row.text_row !== null ? { itemId: row.item_id, ...this.snippet(match, row.text_row) } : null,
    }));
  }

  /** What comes after the row a cursor names, in the order above. */
  private after(cursor: string): { sql: string; values: Array<string | number> } {
    const [named, key, id] = decodeCursor(cursor, 3) as [string, string, string];
    if (named === "1") return { sql: "AND (NOT named OR (updated_at, id) < (?, ?))", values: [key, id] };
    const score = Number(key);
    if (named !== "0" || !Number.isFinite(score)) throw new InvalidInputError(NOT_OUR_CURSOR);
    return { sql: "AND NOT named AND (score > ? OR (score = ? AND id < ?))", values: [score, score, id] };
  }

  private snippet(match: string, textRow: number): SnippetRanges {
    const row = this.store.db
      .query<{ marked: string }, [string, number]>(
        `SELECT snippet(conversation_text, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}', '…', ${SNIPPET_TOKENS}) AS marked FROM conversation_text
         WHERE conversation_text MATCH ? AND rowid = ?`,
      )
      .get(match, textRow);
    return snippetRanges(row?.marked ?? "");
  }
}

const keyOf = (row: Row): string[] => (row.named ? ["1", row.updated_at, row.id] : ["0", String(row.score), row.id]);

import type { Store } from "./database.ts";
import { InvalidInputError } from "../errors.ts";
import { decodeCursor, NOT_OUR_CURSOR, pageOf, type Page } from "./page-cursor.ts";
import { ftsQuery, searchWords, snippetOf, type SearchWords, type SnippetRanges } from "./fts-query.ts";
import { SESSION_NAME_HOLDS, sessionConditions, type SessionFilter, type StoredSession } from "./session-repository.ts";

/** Where a session's conversation matched: its best-ranked (or newest) matching item and a snippet of it. */
export interface ConversationMatch extends SnippetRanges {
  itemId: string;
}

export interface FoundSession {
  session: StoredSession;
  match: ConversationMatch | null;
}

/**
 * The parts of the results, in order, as their cursors name them: sessions whose title or project name
 * holds the text; then sessions only their conversation matched, either ranked (bm25) or, for a search
 * matching more than RANKED_MATCHES items, newest match first.
 */
const PART = { named: "1", ranked: "0", newest: "2" } as const;
type Part = (typeof PART)[keyof typeof PART];

interface Row {
  part: Part;
  id: string;
  data: string;
  /** The sort key within its part: updatedAt, the rank of the best item, or the newest item's row. */
  key: string | number;
  item_id: string | null;
  text_row: number | null;
}

interface After {
  part: Part;
  key: string | number;
  id: string;
}

/**
 * Matching items up to which every match is ranked. bm25 scores each matching item (about 1 µs each,
 * more with the grouping by session), so a word in most items would cost hundreds of milliseconds
 * at a few thousand sessions; past this, walking the index newest first finds a page in a few hundred rows.
 */
export const RANKED_MATCHES = 2_000;

/** SQL that keeps the sessions of the first part out of the second, with the values it binds. */
interface NotNamed {
  sql: string;
  values: string[];
}

/** The named sessions' ids, read once a query from the sessions_by_title index (not each session's JSON). */
const notNamedBy = (text: string): NotNamed => ({ sql: `sessions.id NOT IN (SELECT id FROM sessions WHERE ${SESSION_NAME_HOLDS})`, values: [text, text] });
/** The named sessions' ids as read for the page: on a first page that did not fill with them, they are all of them. */
const notNamedIn = (rows: Row[]): NotNamed => ({
  sql: "sessions.id NOT IN (SELECT value FROM json_each(?))",
  values: [JSON.stringify(rows.map((row) => row.id))],
});

interface Hit {
  session_id: string;
  item_id: string;
  text_row: number;
}

/**
 * Finds sessions by their title, their project's name or their conversation (conversation_text, the
 * full-text index the triggers of migration 15 keep). Sessions whose title or project name holds the
 * text come first, newest activity first (as the list); then those only their conversation matched:
 * best first by the bm25 rank of their best-matching item (prompt or reply), or, when the search
 * matches more than RANKED_MATCHES items, by their newest matching item. A session found by its title
 * shows its newest matching item, if any. Paged by keyset over that order: (part, then updatedAt, rank
 * or row, then id); a search's later pages keep the order its first conversation page took. Snippets
 * are cut from the page's items only (fts-query.ts).
 */
export class SessionSearchRepository {
  constructor(private readonly store: Store) {}

  search(filter: SessionFilter, text: string, limit: number, cursor?: string): Page<FoundSession> {
    const search = searchWords(text);
    const match = search && ftsQuery(search);
    const after = cursor === undefined ? undefined : afterCursor(cursor);
    const rows = after === undefined || after.part === PART.named ? this.named(filter, text, limit + 1, after) : [];
    if (match && rows.length <= limit) {
      const part = after === undefined || after.part === PART.named ? this.orderOf(match) : after.part;
      const from = after?.part === part ? after : undefined;
      const wanted = limit + 1 - rows.length;
      // A first page's named sessions are all of them (they did not fill it): kept out by id, the title index is not read again (2 ms at 5,000 sessions).
      const notNamed = after === undefined ? notNamedIn(rows) : notNamedBy(text);
      rows.push(...(part === PART.ranked ? this.ranked(filter, notNamed, match, wanted, from) : this.newest(filter, notNamed, match, wanted, from)));
    }
    const found = match ? this.withNamedMatches(rows, limit, match) : rows;
    return pageOf(found, limit, keyOf, (row) => ({ session: JSON.parse(row.data) as StoredSession, match: search && this.matchOf(row, search) }));
  }

  /**
   * Sessions whose title or project name holds the text, newest activity first: found in the
   * sessions_by_title index alone (migration 16), then only the page's records read.
   */
  private named(filter: SessionFilter, text: string, wanted: number, after: After | undefined): Row[] {
    const { where, values } = sessionConditions(filter);
    const past = after === undefined ? "" : "AND (updated_at, id) < (?, ?)";
    return this.store.db
      .query<Row, Array<string | number>>(
        `SELECT '${PART.named}' AS part, id, data, updated_at AS key, NULL AS item_id, NULL AS text_row FROM sessions
         WHERE id IN (SELECT id FROM sessions WHERE ${where.join(" AND ")} AND ${SESSION_NAME_HOLDS} ${past} ORDER BY updated_at DESC, id DESC LIMIT ?)
         ORDER BY updated_at DESC, id DESC`,
      )
      .all(...values, text, text, ...(after === undefined ? [] : [after.key, after.id]), wanted);
  }

  /** Ranked, or newest first when more than RANKED_MATCHES items match (counted only that far). */
  private orderOf(match: string): Part {
    const counted = this.store.db
      .query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM (SELECT 1 FROM conversation_text WHERE conversation_text MATCH ? LIMIT ?)")
      .get(match, RANKED_MATCHES + 1);
    return (counted?.n ?? 0) > RANKED_MATCHES ? PART.newest : PART.ranked;
  }

  /**
   * Sessions (not named) by the bm25 rank of their best-matching item (lower is better); bare columns of
   * a MIN() come from the row that has it. The hits are sorted before the sessions are joined (CROSS
   * JOIN keeps that order), so only the page's sessions are read and checked: at 5,000 sessions, joining
   * every hit first had SQLite scan all sessions (a rare word's query, in process: 15.4 ms, now 11.1).
   */
  private ranked(filter: SessionFilter, notNamed: NotNamed, match: string, wanted: number, after: After | undefined): Row[] {
    const { where, values } = sessionConditions(filter);
    const past = after === undefined ? "" : "AND (hits.score > ? OR (hits.score = ? AND hits.session_id < ?))";
    return this.store.db
      .query<Row, Array<string | number>>(
        `SELECT '${PART.ranked}' AS part, sessions.id, sessions.data, hits.score AS key, hits.item_id, hits.text_row
         FROM (SELECT rows.session_id, MIN(matched.rank) AS score, rows.item_id, matched.rowid AS text_row
           FROM (SELECT rowid, rank FROM conversation_text WHERE conversation_text MATCH ?) AS matched
           JOIN conversation_text_rows AS rows ON rows.id = matched.rowid GROUP BY rows.session_id ORDER BY score, rows.session_id DESC) AS hits
         CROSS JOIN sessions ON sessions.id = hits.session_id
         WHERE ${where.join(" AND ")} AND ${notNamed.sql} ${past} ORDER BY hits.score, hits.session_id DESC LIMIT ?`,
      )
      .all(match, ...values, ...notNamed.values, ...(after === undefined ? [] : [after.key, after.key, after.id]), wanted);
  }

  /**
   * Sessions (not named) by their newest matching item: the index walked from its newest row, each
   * session taken where it first appears, stopping once the page is full. A later page walks from the
   * top again (the sessions above its cursor are the ones already given), so it costs as much as the
   * pages before it: deep pages of a word said everywhere are slower, the first ones are not.
   */
  private newest(filter: SessionFilter, notNamed: NotNamed, match: string, wanted: number, after: After | undefined): Row[] {
    const { where, values } = sessionConditions(filter);
    // The records are read for the page's sessions only: a row read into JavaScript per matching item costs more than the walk.
    const walk = this.store.db.query<Hit, Array<string | number>>(
      `SELECT rows.session_id, rows.item_id, conversation_text.rowid AS text_row
       FROM conversation_text JOIN conversation_text_rows AS rows ON rows.id = conversation_text.rowid JOIN sessions ON sessions.id = rows.session_id
       WHERE conversation_text MATCH ? AND ${where.join(" AND ")} AND ${notNamed.sql} ORDER BY conversation_text.rowid DESC`,
    );
    const seen = new Set<string>();
    const hits: Hit[] = [];
    for (const hit of walk.iterate(match, ...values, ...notNamed.values)) {
      if (seen.has(hit.session_id)) continue;
      seen.add(hit.session_id);
      // A session's newest row is its own: those at or above the cursor's were on the pages before.
      if (after !== undefined && hit.text_row >= Number(after.key)) continue;
      hits.push(hit);
      if (hits.length === wanted) break;
    }
    const record = this.store.db.query<{ data: string }, [string]>("SELECT data FROM sessions WHERE id = ?");
    return hits.map((hit) => ({
      part: PART.newest,
      id: hit.session_id,
      // Read in the same synchronous call as the walk: the session is there.
      data: record.get(hit.session_id)!.data,
      key: hit.text_row,
      item_id: hit.item_id,
      text_row: hit.text_row,
    }));
  }

  /**
   * The page's sessions (of `rows`, the first `limit`) found by title, each with its newest matching item if its conversation matched
   * too: the index walked newest first among those sessions' rows only, until each has one. (A search
   * matching few items ranks them all; this walk may read every match of a common word once, about a
   * third of a microsecond each, but not rank them.)
   */
  private withNamedMatches(rows: Row[], limit: number, match: string): Row[] {
    const named = rows
      .slice(0, limit)
      .filter((row) => row.part === PART.named)
      .map((row) => row.id);
    if (named.length === 0) return rows;
    // `+rowid`: the rows are a filter on the walk; as a constraint FTS5 would run the search once per row.
    const walk = this.store.db.query<Hit, [string, string]>(
      `SELECT rows.session_id, rows.item_id, conversation_text.rowid AS text_row
       FROM conversation_text CROSS JOIN conversation_text_rows AS rows ON rows.id = conversation_text.rowid
       WHERE conversation_text MATCH ?
         AND +conversation_text.rowid IN (SELECT id FROM conversation_text_rows WHERE session_id IN (SELECT value FROM json_each(?)))
       ORDER BY conversation_text.rowid DESC`,
    );
    const newest = new Map<string, Hit>();
    for (const hit of walk.iterate(match, JSON.stringify(named))) {
      if (!newest.has(hit.session_id)) newest.set(hit.session_id, hit);
      if (newest.size === named.length) break;
    }
    return rows.map((row) => {
      const hit = row.part === PART.named ? newest.get(row.id) : undefined;
      return hit ? { ...row, item_id: hit.item_id, text_row: hit.text_row } : row;
    });
  }

  /** The matched item and its snippet, cut from its text as the index keeps it. */
  private matchOf(row: Row, search: SearchWords): ConversationMatch | null {
    if (row.item_id === null || row.text_row === null) return null;
    const item = this.store.db.query<{ text: string }, [number]>("SELECT text FROM conversation_text WHERE rowid = ?").get(row.text_row);
    return { itemId: row.item_id, ...snippetOf(item?.text ?? "", search) };
  }
}

const keyOf = (row: Row): string[] => [row.part, String(row.key), row.id];

/** What comes after the row a cursor names, in the order above. */
function afterCursor(cursor: string): After {
  const [part, key, id] = decodeCursor(cursor, 3) as [string, string, string];
  if (part === PART.named) return { part, key, id };
  const number = Number(key);
  if ((part === PART.ranked && Number.isFinite(number)) || (part === PART.newest && Number.isSafeInteger(number))) return { part, key: number, id };
  throw new InvalidInputError(NOT_OUR_CURSOR);
}

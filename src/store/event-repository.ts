import type { Store } from "./database.ts";
import { MetaRepository } from "./meta-repository.ts";

export interface StoredEvent {
  globalId: number;
  sessionId: string | null;
  sessionSeq: number | null;
  subjectId: string;
  subjectRevision: number;
  kind: string;
  payload: string;
  createdAt: string;
}

interface EventRow {
  global_id: number;
  session_id: string | null;
  session_seq: number | null;
  subject_id: string;
  subject_revision: number;
  kind: string;
  payload: string;
  created_at: string;
}

const COLUMNS = "global_id, session_id, session_seq, subject_id, subject_revision, kind, payload, created_at";

const toStoredEvent = (row: EventRow): StoredEvent => ({
  globalId: row.global_id,
  sessionId: row.session_id,
  sessionSeq: row.session_seq,
  subjectId: row.subject_id,
  subjectRevision: row.subject_revision,
  kind: row.kind,
  payload: row.payload,
  createdAt: row.created_at,
});

export interface EventQuery {
  afterGlobalId: number;
  sessionId?: string;
  limit: number;
}

/** The append-only event log table. Sequences are derived from the indexed maxima. */
export class EventRepository {
  /** Where the log keeps its horizon and id reservations. */
  private readonly meta: MetaRepository;

  constructor(private readonly store: Store) {
    this.meta = new MetaRepository(store);
  }

  /** Counts on from the newest revision kept, or removed by compaction: a revision is never given twice. */
  nextSubjectRevision(subjectId: string): number {
    const row = this.store.db
      .query<{ r: number | null }, [string, string]>(
        `SELECT MAX(r) AS r FROM (SELECT MAX(subject_revision) AS r FROM events WHERE subject_id = ?
           UNION ALL SELECT last AS r FROM compacted_sequences WHERE scope = 'subject' AND id = ?)`,
      )
      .get(subjectId, subjectId);
    return (row?.r ?? 0) + 1;
  }

  nextSessionSeq(sessionId: string): number {
    const row = this.store.db
      .query<{ s: number | null }, [string, string]>(
        `SELECT MAX(s) AS s FROM (SELECT MAX(session_seq) AS s FROM events WHERE session_id = ?
           UNION ALL SELECT last AS s FROM compacted_sequences WHERE scope = 'session' AND id = ?)`,
      )
      .get(sessionId, sessionId);
    return (row?.s ?? 0) + 1;
  }

  /** The highest per-session sequence number compaction removed for this session (0: none). */
  compactedSessionSeq(sessionId: string): number {
    return this.store.db.query<{ last: number }, [string]>("SELECT last FROM compacted_sequences WHERE scope = 'session' AND id = ?").get(sessionId)?.last ?? 0;
  }

  /** Inserts one event under the globalEventId the log gave it. Uses `.run()`: RETURNING read with `.get()` stalls WAL checkpoints. */
  insert(event: StoredEvent): void {
    this.store.db
      .query(
        `INSERT INTO events (global_id, session_id, session_seq, subject_id, subject_revision, kind, payload, created_at)
         VALUES ($globalId, $sessionId, $sessionSeq, $subjectId, $subjectRevision, $kind, $payload, $createdAt)`,
      )
      .run({ ...event });
  }

  /** The highest globalEventId ever stored, deleted ones too (AUTOINCREMENT's counter): ids above it are free. */
  highestEverStored(): number {
    return this.store.db.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get()?.seq ?? 0;
  }

  /**
   * Ids the log may have handed to events published before they were stored (a streamed reply's
   * deltas): after a crash, those ids are never given again. 0 when none are out.
   */
  reservedThrough(): number {
    return Number(this.meta.get("event_ids_reserved") ?? 0);
  }

  setReservedThrough(globalId: number): void {
    this.meta.set("event_ids_reserved", String(globalId));
  }

  /** Ranges of ids published but lost in a crash before they were stored: a client's cursor there must re-read. */
  lostRanges(): Array<[number, number]> {
    return JSON.parse(this.meta.get("event_ids_lost") ?? "[]") as Array<[number, number]>;
  }

  setLostRanges(ranges: Array<[number, number]>): void {
    this.meta.set("event_ids_lost", JSON.stringify(ranges));
  }

  /** The retention horizon: events at or below this globalEventId may have been compacted away (0: none were). */
  horizon(): number {
    return Number(this.meta.get("event_horizon") ?? 0);
  }

  setHorizon(globalId: number): void {
    this.meta.set("event_horizon", String(globalId));
  }

  listAfter(query: EventQuery): StoredEvent[] {
    const rows = query.sessionId
      ? this.store.db
          .query<EventRow, [string, number, number]>(`SELECT ${COLUMNS} FROM events WHERE session_id = ? AND global_id > ? ORDER BY global_id LIMIT ?`)
          .all(query.sessionId, query.afterGlobalId, query.limit)
      : this.store.db
          .query<EventRow, [number, number]>(`SELECT ${COLUMNS} FROM events WHERE global_id > ? ORDER BY global_id LIMIT ?`)
          .all(query.afterGlobalId, query.limit);
    return rows.map(toStoredEvent);
  }

  /** Removes every event recorded under a session (it is deleted: nothing of it is served again). */
  removeSession(sessionId: string): void {
    // Two statements, each on its own index: an OR would scan the whole log.
    this.store.db.query("DELETE FROM events WHERE session_id = ?").run(sessionId);
    this.store.db.query("DELETE FROM events WHERE subject_id = ?").run(sessionId);
    this.store.db.query("DELETE FROM compacted_sequences WHERE id = ?").run(sessionId);
  }

  /** The oldest events (up to `limit`, at most through `throughGlobalId`), oldest first, with when each was made. */
  oldest(throughGlobalId: number, limit: number): Array<{ globalId: number; createdAt: string }> {
    return this.store.db
      .query<{ global_id: number; created_at: string }, [number, number]>(
        "SELECT global_id, created_at FROM events WHERE global_id <= ? ORDER BY global_id LIMIT ?",
      )
      .all(throughGlobalId, limit)
      .map((row) => ({ globalId: row.global_id, createdAt: row.created_at }));
  }

  /**
   * Removes every event through `globalId`, first keeping the highest sequence numbers they held, so
   * the subjects and sessions they belonged to count on from there. Run inside a transaction.
   */
  removeThrough(globalId: number): number {
    for (const [scope, column, key] of [
      ["subject", "subject_revision", "subject_id"],
      ["session", "session_seq", "session_id"],
    ] as const) {
      this.store.db
        .query(
          `INSERT INTO compacted_sequences (scope, id, last)
             SELECT '${scope}', ${key}, MAX(${column}) FROM events WHERE global_id <= ? AND ${key} IS NOT NULL GROUP BY ${key}
           ON CONFLICT (scope, id) DO UPDATE SET last = MAX(last, excluded.last)`,
        )
        .run(globalId);
    }
    return this.store.db.query("DELETE FROM events WHERE global_id <= ?").run(globalId).changes;
  }

  /** One session's events after a per-session sequence number, in order. */
  listSession(sessionId: string, afterSessionSeq: number, limit: number): StoredEvent[] {
    return this.store.db
      .query<EventRow, [string, number, number]>(`SELECT ${COLUMNS} FROM events WHERE session_id = ? AND session_seq > ? ORDER BY session_seq LIMIT ?`)
      .all(sessionId, afterSessionSeq, limit)
      .map(toStoredEvent);
  }
}

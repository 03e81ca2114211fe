import type { Store } from "./database.ts";

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
  constructor(private readonly store: Store) {}

  nextSubjectRevision(subjectId: string): number {
    const row = this.store.db.query<{ r: number | null }, [string]>("SELECT MAX(subject_revision) AS r FROM events WHERE subject_id = ?").get(subjectId);
    return (row?.r ?? 0) + 1;
  }

  nextSessionSeq(sessionId: string): number {
    const row = this.store.db.query<{ s: number | null }, [string]>("SELECT MAX(session_seq) AS s FROM events WHERE session_id = ?").get(sessionId);
    return (row?.s ?? 0) + 1;
  }

  /** Inserts one event and returns its global id. Uses `.run()`: RETURNING read with `.get()` stalls WAL checkpoints. */
  insert(event: Omit<StoredEvent, "globalId">): number {
    const result = this.store.db
      .query(
        `INSERT INTO events (session_id, session_seq, subject_id, subject_revision, kind, payload, created_at)
         VALUES ($sessionId, $sessionSeq, $subjectId, $subjectRevision, $kind, $payload, $createdAt)`,
      )
      .run(event);
    return Number(result.lastInsertRowid);
  }

  maxGlobalId(): number {
    const row = this.store.db.query<{ g: number | null }, []>("SELECT MAX(global_id) AS g FROM events").get();
    return row?.g ?? 0;
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
  }

  /** One session's events after a per-session sequence number, in order. */
  listSession(sessionId: string, afterSessionSeq: number, limit: number): StoredEvent[] {
    return this.store.db
      .query<EventRow, [string, number, number]>(`SELECT ${COLUMNS} FROM events WHERE session_id = ? AND session_seq > ? ORDER BY session_seq LIMIT ?`)
      .all(sessionId, afterSessionSeq, limit)
      .map(toStoredEvent);
  }
}

import type { Store } from "./database.ts";
import { decodeCursor, pageOf, type Page } from "./page-cursor.ts";
import type { Schedule } from "../schemas/schedules.ts";

interface Row {
  id: string;
  session_id: string;
  text: string;
  at: string | null;
  cron: string | null;
  time_zone: string;
  missed: Schedule["missed"];
  next_run_at: string | null;
  last_run_at: string | null;
  created_at: string;
}

const toSchedule = (row: Row): Schedule => ({
  id: row.id,
  sessionId: row.session_id,
  text: row.text,
  at: row.at,
  cron: row.cron,
  timezone: row.time_zone,
  missed: row.missed,
  nextRunAt: row.next_run_at,
  lastRunAt: row.last_run_at,
  createdAt: row.created_at,
});

/** Sessions' scheduled prompts (a session's deletion removes them with its other rows: SessionRepository.remove). */
export class ScheduleRepository {
  constructor(private readonly store: Store) {}

  save(schedule: Schedule): void {
    this.store.db
      .query(
        `INSERT INTO session_schedules (id, session_id, text, at, cron, time_zone, missed, next_run_at, last_run_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET next_run_at = excluded.next_run_at, last_run_at = excluded.last_run_at`,
      )
      .run(
        schedule.id,
        schedule.sessionId,
        schedule.text,
        schedule.at,
        schedule.cron,
        schedule.timezone,
        schedule.missed,
        schedule.nextRunAt,
        schedule.lastRunAt,
        schedule.createdAt,
      );
  }

  get(id: string): Schedule | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT * FROM session_schedules WHERE id = ?").get(id);
    return row ? toSchedule(row) : undefined;
  }

  /** A page of a session's schedules, oldest first; `cursor` continues after the page that gave it out. */
  list(sessionId: string, limit: number, cursor?: string): Page<Schedule> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 2);
    const rows = this.store.db
      .query<Row, Array<string | number>>(
        `SELECT * FROM session_schedules WHERE session_id = ? ${after ? "AND (created_at, id) > (?, ?)" : ""} ORDER BY created_at, id LIMIT ?`,
      )
      .all(sessionId, ...(after ?? []), limit + 1);
    return pageOf(rows, limit, (row) => [row.created_at, row.id], toSchedule);
  }

  count(sessionId: string): number {
    return this.store.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM session_schedules WHERE session_id = ?").get(sessionId)?.n ?? 0;
  }

  /** Schedules whose next run is at or before `time`, earliest first. */
  due(time: string): Schedule[] {
    return this.store.db
      .query<Row, [string]>("SELECT * FROM session_schedules WHERE next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id")
      .all(time)
      .map(toSchedule);
  }

  /** The earliest next run of any schedule, or null when none waits. */
  nextRunAt(): string | null {
    return this.store.db.query<{ t: string | null }, []>("SELECT MIN(next_run_at) AS t FROM session_schedules WHERE next_run_at IS NOT NULL").get()?.t ?? null;
  }

  remove(id: string): void {
    this.store.db.query("DELETE FROM session_schedules WHERE id = ?").run(id);
  }
}

import type { Migration } from "../migrations.ts";

export const sessionSchedulesMigration: Migration = {
  version: 17,
  name: "session schedules: prompts queued at a time or on a cron expression",
  sql: `
    CREATE TABLE session_schedules (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      text TEXT NOT NULL,
      -- One of the two: a one-shot time (RFC 3339, UTC) or a cron expression read in time_zone.
      at TEXT,
      cron TEXT,
      time_zone TEXT NOT NULL,
      -- 'run-once' or 'skip'
      missed TEXT NOT NULL,
      -- NULL once a one-shot schedule has run.
      next_run_at TEXT,
      last_run_at TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX session_schedules_by_session ON session_schedules (session_id, created_at, id);
    CREATE INDEX session_schedules_by_next_run ON session_schedules (next_run_at) WHERE next_run_at IS NOT NULL;
  `,
};

import type { Migration } from "../migrations.ts";

export const foundationMigration: Migration = {
  version: 1,
  name: "foundation: server identity, access tokens, event log, sync entries",
  sql: `
    CREATE TABLE meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    CREATE TABLE access_tokens (
      name TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      last_used_at TEXT
    );

    CREATE TABLE events (
      global_id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id TEXT,
      session_seq INTEGER,
      subject_id TEXT NOT NULL,
      subject_revision INTEGER NOT NULL,
      kind TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE UNIQUE INDEX events_by_session ON events (session_id, session_seq) WHERE session_id IS NOT NULL;
    CREATE UNIQUE INDEX events_by_subject ON events (subject_id, subject_revision);

    CREATE TABLE sync_entries (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT,
      wall_ms INTEGER NOT NULL,
      counter INTEGER NOT NULL,
      device_id TEXT NOT NULL,
      deleted INTEGER NOT NULL,
      PRIMARY KEY (namespace, key)
    );
  `,
};

import type { Migration } from "../migrations.ts";

export const sessionsMigration: Migration = {
  version: 5,
  name: "sessions: the session record, its conversation, prompt queue, transcript details and uploaded files",
  sql: `
    CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL,
      harness_id TEXT NOT NULL,
      sidebar_state TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      -- The rest of the record (StoredSession) as JSON: read and written whole.
      data TEXT NOT NULL
    );
    CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id DESC);
    CREATE TABLE conversation_items (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      id TEXT NOT NULL UNIQUE,
      role TEXT NOT NULL,
      message_id TEXT,
      text TEXT NOT NULL,
      created_at TEXT NOT NULL,
      is_generating INTEGER NOT NULL,
      attachments TEXT NOT NULL,
      stop_reason TEXT,
      PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE prompt_queue (
      id TEXT PRIMARY KEY,
      session_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      text TEXT NOT NULL,
      attachments TEXT NOT NULL,
      client_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX prompt_queue_by_session ON prompt_queue (session_id, position);
    CREATE TABLE transcript_entries (
      session_id TEXT NOT NULL,
      item_id TEXT NOT NULL,
      key TEXT NOT NULL,
      position INTEGER NOT NULL,
      revision INTEGER NOT NULL,
      payload TEXT NOT NULL,
      PRIMARY KEY (item_id, key)
    );
    CREATE INDEX transcript_entries_by_position ON transcript_entries (item_id, position);
    CREATE TABLE files (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      size_bytes INTEGER NOT NULL,
      path TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
  `,
};

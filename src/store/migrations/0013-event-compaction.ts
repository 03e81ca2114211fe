import type { Migration } from "../migrations.ts";

export const eventCompactionMigration: Migration = {
  version: 13,
  name: "event compaction: the last sequence numbers of what compaction removed, so they are never handed out again",
  sql: `
    -- scope 'subject': the highest subject_revision removed for a subject; 'session': the highest session_seq.
    CREATE TABLE compacted_sequences (
      scope TEXT NOT NULL,
      id TEXT NOT NULL,
      last INTEGER NOT NULL,
      PRIMARY KEY (scope, id)
    ) WITHOUT ROWID;
  `,
};

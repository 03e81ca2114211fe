import type { Migration } from "../migrations.ts";

export const promptReceiptsMigration: Migration = {
  version: 6,
  name: "prompt receipts: each client id a session accepted, with the prompt it queued, for the session's life",
  sql: `
    CREATE TABLE prompt_receipts (
      session_id TEXT NOT NULL,
      client_id TEXT NOT NULL,
      -- The QueuedPrompt as accepted, as JSON: a retry gets it back after it started or was dropped.
      prompt TEXT NOT NULL,
      PRIMARY KEY (session_id, client_id)
    );
  `,
};

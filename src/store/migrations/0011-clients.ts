import type { Migration } from "../migrations.ts";

export const clientsMigration: Migration = {
  version: 11,
  name: "clients: the window state each client last reported, kept after it went away",
  sql: `
    CREATE TABLE clients (
      client_id TEXT PRIMARY KEY,
      -- ClientWindowState (JSON)
      state TEXT NOT NULL,
      last_seen_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
  `,
};

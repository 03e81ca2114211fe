import type { Migration } from "../migrations.ts";

export const machinesMigration: Migration = {
  version: 12,
  name: "machines: paired peers, pairing codes, and where each sync entry last changed in the event log",
  sql: `
    CREATE TABLE machines (
      machine_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      os TEXT NOT NULL,
      -- where this server reaches the peer
      url TEXT NOT NULL,
      -- the token the peer minted for this server (the peer keeps only its hash)
      peer_token TEXT NOT NULL,
      added_by TEXT NOT NULL,
      added_at TEXT NOT NULL,
      last_seen_at TEXT,
      -- the peer's event cursor up to which its sync entries have been pulled
      pulled_cursor INTEGER NOT NULL DEFAULT -1
    );
    CREATE TABLE pairing_codes (
      code_hash TEXT PRIMARY KEY,
      created_by TEXT NOT NULL,
      expires_at TEXT NOT NULL
    );
    ALTER TABLE sync_entries ADD COLUMN event_id INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX sync_entries_by_event ON sync_entries (event_id);
  `,
};

import type { Migration } from "../migrations.ts";

export const harnessAccountsMigration: Migration = {
  version: 4,
  name: "harness accounts: config homes per login, labels, and the active account",
  sql: `
    CREATE TABLE harness_accounts (
      id TEXT PRIMARY KEY,
      harness_id TEXT NOT NULL,
      label TEXT,
      config_home TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX harness_accounts_by_harness ON harness_accounts (harness_id, created_at);
    CREATE TABLE harness_active_accounts (
      harness_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL
    );
  `,
};

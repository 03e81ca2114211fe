import type { Migration } from "../migrations.ts";

export const harnessesMigration: Migration = {
  version: 3,
  name: "harness settings: the user's enable/disable override",
  sql: `
    CREATE TABLE harness_settings (
      harness_id TEXT PRIMARY KEY,
      enabled INTEGER NOT NULL
    );
  `,
};

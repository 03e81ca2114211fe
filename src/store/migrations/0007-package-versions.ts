import type { Migration } from "../migrations.ts";

export const packageVersionsMigration: Migration = {
  version: 7,
  name: "package versions: the newest version the npm registry named for each harness package, kept across restarts",
  sql: `
    CREATE TABLE package_versions (
      package TEXT PRIMARY KEY,
      -- null when the registry could not be asked; notes say why
      version TEXT,
      notes TEXT,
      checked_at TEXT NOT NULL,
      -- milliseconds since the epoch after which the registry is asked again
      expires_at INTEGER NOT NULL
    );
  `,
};

import type { Migration } from "../migrations.ts";

export const pluginsMigration: Migration = {
  version: 10,
  name: "plugins: each installed plugin, its manifest, what was consented to, and the version before its last update",
  sql: `
    CREATE TABLE plugins (
      id TEXT PRIMARY KEY,
      -- atrium-plugin.json as installed (JSON)
      manifest TEXT NOT NULL,
      source TEXT NOT NULL,
      source_commit TEXT,
      consent_key TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      path TEXT NOT NULL,
      -- the version before the last update, to restore (JSON: manifest, path, sourceCommit, consentKey), or null
      previous TEXT,
      installed_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
  `,
};

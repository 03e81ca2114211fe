import type { Store } from "./database.ts";
import { foundationMigration } from "./migrations/0001-foundation.ts";
import { projectsMigration } from "./migrations/0002-projects.ts";
import { harnessesMigration } from "./migrations/0003-harnesses.ts";
import { harnessAccountsMigration } from "./migrations/0004-harness-accounts.ts";
import { sessionsMigration } from "./migrations/0005-sessions.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every schema change, in order. Append only: a released migration is never edited. */
export const migrations: Migration[] = [foundationMigration, projectsMigration, harnessesMigration, harnessAccountsMigration, sessionsMigration];

export const latestSchemaVersion = migrations[migrations.length - 1]?.version ?? 0;

export interface MigrationReport {
  fromVersion: number;
  toVersion: number;
  applied: Array<{ version: number; name: string; durationMs: number }>;
}

export function currentSchemaVersion(store: Store): number {
  store.db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const row = store.db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get();
  return row?.v ?? 0;
}

/**
 * Brings the schema up to date, each migration in its own transaction together with its bookkeeping
 * row, so a crash leaves the database at a whole version. A database written by a newer Atrium is
 * refused rather than guessed at.
 */
export function migrate(store: Store, list: Migration[] = migrations, now: () => Date = () => new Date()): MigrationReport {
  const fromVersion = currentSchemaVersion(store);
  const known = list[list.length - 1]?.version ?? 0;
  if (fromVersion > known) {
    throw new Error(
      `the database is at schema version ${fromVersion}, newer than this Atrium knows (${known}); run a newer Atrium or restore a backup`,
    );
  }
  const applied: MigrationReport["applied"] = [];
  for (const migration of list) {
    if (migration.version <= fromVersion) continue;
    const started = performance.now();
    store.transaction(() => {
      store.db.exec(migration.sql);
      store.db
        .query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($version, $name, $appliedAt)")
        .run({ version: migration.version, name: migration.name, appliedAt: now().toISOString() });
    });
    applied.push({ version: migration.version, name: migration.name, durationMs: performance.now() - started });
  }
  return { fromVersion, toVersion: currentSchemaVersion(store), applied };
}

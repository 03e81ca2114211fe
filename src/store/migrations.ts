import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "./database.ts";
import { foundationMigration } from "./migrations/0001-foundation.ts";
import { projectsMigration } from "./migrations/0002-projects.ts";
import { harnessesMigration } from "./migrations/0003-harnesses.ts";
import { harnessAccountsMigration } from "./migrations/0004-harness-accounts.ts";
import { sessionsMigration } from "./migrations/0005-sessions.ts";
import { promptReceiptsMigration } from "./migrations/0006-prompt-receipts.ts";
import { packageVersionsMigration } from "./migrations/0007-package-versions.ts";
import { replyDeltasMigration } from "./migrations/0008-reply-deltas.ts";
import { mcpServersMigration } from "./migrations/0009-mcp-servers.ts";
import { pluginsMigration } from "./migrations/0010-plugins.ts";
import { clientsMigration } from "./migrations/0011-clients.ts";
import { machinesMigration } from "./migrations/0012-machines.ts";
import { eventCompactionMigration } from "./migrations/0013-event-compaction.ts";
import { pushSubscriptionsMigration } from "./migrations/0014-push-subscriptions.ts";
import { conversationSearchMigration } from "./migrations/0015-conversation-search.ts";
import { searchIndexesMigration } from "./migrations/0016-search-indexes.ts";
import { sessionSchedulesMigration } from "./migrations/0017-session-schedules.ts";
import { promptMentionsMigration } from "./migrations/0018-prompt-mentions.ts";
import { sessionMovesMigration } from "./migrations/0019-session-moves.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every schema change, in order. Append only: a released migration is never edited. */
export const migrations: Migration[] = [
  foundationMigration,
  projectsMigration,
  harnessesMigration,
  harnessAccountsMigration,
  sessionsMigration,
  promptReceiptsMigration,
  packageVersionsMigration,
  replyDeltasMigration,
  mcpServersMigration,
  pluginsMigration,
  clientsMigration,
  machinesMigration,
  eventCompactionMigration,
  pushSubscriptionsMigration,
  conversationSearchMigration,
  searchIndexesMigration,
  sessionSchedulesMigration,
  promptMentionsMigration,
  sessionMovesMigration,
];

export const latestSchemaVersion = migrations[migrations.length - 1]?.version ?? 0;

export interface MigrationReport {
  fromVersion: number;
  toVersion: number;
  applied: Array<{ version: number; name: string; durationMs: number }>;
  /** The copy taken before the schema changed, when there was data to keep. */
  backupPath: string | null;
}

export interface MigrateOptions {
  list?: Migration[];
  now?: () => Date;
  /** Where a copy of the database goes before a migration changes an existing one. */
  backupDir?: string;
  /** Told before each step (the backup, then each migration) and once all are done. */
  onProgress?: (progress: MigrationStepProgress) => void;
}

export interface MigrationStepProgress {
  /** Steps finished so far, of `total`: the backup (when one is taken) and each pending migration. */
  done: number;
  total: number;
  /** What runs now; absent once every step is done. */
  current?: string;
}

/** Backups kept; older ones are removed once a new one is taken. */
const BACKUPS_KEPT = 3;

export function currentSchemaVersion(store: Store): number {
  store.db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const row = store.db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get();
  return row?.v ?? 0;
}

/**
 * Brings the schema up to date. All pending migrations run in one transaction with their bookkeeping
 * rows, so a failure or a crash leaves the database exactly as the previous Atrium left it, and that
 * Atrium can still open it. A database written by a newer Atrium is refused rather than guessed at.
 */
export function migrate(store: Store, options: MigrateOptions = {}): MigrationReport {
  const { list = migrations, now = () => new Date(), onProgress } = options;
  const fromVersion = currentSchemaVersion(store);
  const known = list[list.length - 1]?.version ?? 0;
  if (fromVersion > known) {
    throw new Error(`the database is at schema version ${fromVersion}, newer than this Atrium knows (${known}); run a newer Atrium or restore a backup`);
  }
  const pending = list.filter((migration) => migration.version > fromVersion);
  // A new database has nothing to keep.
  const backupDir = pending.length > 0 && fromVersion > 0 ? options.backupDir : undefined;
  const total = pending.length + (backupDir === undefined ? 0 : 1);
  let done = 0;
  let backupPath: string | null = null;
  if (backupDir !== undefined) {
    onProgress?.({ done, total, current: `backing up the database at schema ${fromVersion}` });
    backupPath = backUp(store, backupDir, fromVersion, now());
    done++;
  }
  const applied: MigrationReport["applied"] = [];
  store.transaction(() => {
    for (const migration of pending) {
      onProgress?.({ done, total, current: `migration ${migration.version} (${migration.name})` });
      const started = performance.now();
      store.db.exec(migration.sql);
      store.db
        .query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($version, $name, $appliedAt)")
        .run({ version: migration.version, name: migration.name, appliedAt: now().toISOString() });
      applied.push({ version: migration.version, name: migration.name, durationMs: performance.now() - started });
      done++;
    }
  });
  if (backupDir !== undefined)
    enableIncrementalVacuum(store, () => onProgress?.({ done, total, current: "rewriting the database so deleted data gives its space back (once)" }));
  onProgress?.({ done, total });
  return { fromVersion, toVersion: currentSchemaVersion(store), applied, backupPath };
}

/**
 * A database made before auto_vacuum was set keeps every freed page in the file; one VACUUM switches
 * it to incremental, so deletions and compaction give space back from then on. It needs room for a
 * copy of the file: on a full disk it is left for the next migration, and the database works as before.
 */
function enableIncrementalVacuum(store: Store, announce: () => void): void {
  if (store.db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()?.auto_vacuum !== 0) return;
  announce();
  try {
    store.db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    store.db.exec("VACUUM");
  } catch {
    // stays as it was (auto_vacuum takes effect only through a VACUUM)
  }
}

/**
 * A consistent copy of the database (`VACUUM INTO`, a single file without its WAL), named by the
 * schema version it holds, so an older Atrium can be put back with its data.
 */
function backUp(store: Store, dir: string, version: number, at: Date): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `atrium-schema${version}-${at.toISOString().replace(/[:.]/g, "-")}.db`);
  // VACUUM INTO fills an empty file it is given, which keeps the copy 0600 like the database.
  closeSync(openSync(path, "wx", 0o600));
  store.db.query("VACUUM INTO ?").run(path);
  const backups = readdirSync(dir).filter((name) => /^atrium-schema\d+-.*\.db$/.test(name));
  const byAge = backups.map((name) => ({ name, mtime: statSync(join(dir, name)).mtimeMs })).sort((a, b) => b.mtime - a.mtime || b.name.localeCompare(a.name));
  for (const old of byAge.slice(BACKUPS_KEPT)) rmSync(join(dir, old.name), { force: true });
  return path;
}

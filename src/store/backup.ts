import { Database } from "bun:sqlite";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { Store } from "./database.ts";
import { migrations } from "./migrations.ts";
import { syncPath } from "./sync-path.ts";

/** Why a backup cannot be taken or put back: said to the person as it is. */
export class BackupError extends Error {}

/**
 * Writes a consistent copy of the database to `file` (`VACUUM INTO`: one file, the WAL folded in, as
 * of one moment, while a server goes on writing). The file must not exist; it is made 0600 first.
 */
export function backUpTo(store: Store, file: string): { schemaVersion: number; bytes: number } {
  copyDatabase(store, file);
  return { schemaVersion: checkBackup(file), bytes: statSync(file).size };
}

function copyDatabase(store: Store, file: string): void {
  if (existsSync(file)) throw new BackupError(`${file} exists already; name a new file`);
  mkdirSync(dirname(file), { recursive: true });
  // VACUUM INTO fills an empty file it is given, which keeps the copy private like the database.
  closeSync(openSync(file, "wx", 0o600));
  try {
    store.db.query("VACUUM INTO ?").run(file);
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
}

/**
 * Checks that `file` is an intact Atrium database this Atrium can run (its schema version at most the
 * newest it knows; an older one is migrated at the next start). Returns that version.
 */
export function checkBackup(file: string): number {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  let db: Database;
  try {
    db = new Database(file, { readonly: true });
  } catch (error) {
    throw new BackupError(`${file} cannot be opened as a database (${(error as Error).message})`);
  }
  try {
    let integrity: string;
    try {
      integrity = db
        .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
        .all()
        .map((row) => row.integrity_check)
        .join("; ");
    } catch (error) {
      throw new BackupError(`${file} is not a database (${(error as Error).message})`);
    }
    if (integrity !== "ok") throw new BackupError(`${file} is damaged: ${integrity.slice(0, 300)}`);
    const isAtrium = db
      .query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('schema_migrations', 'events', 'meta')")
      .get();
    if (isAtrium?.n !== 3) throw new BackupError(`${file} is not an Atrium database`);
    const version = db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()?.v ?? 0;
    const known = migrations[migrations.length - 1]?.version ?? 0;
    if (version > known)
      throw new BackupError(`${file} is at schema version ${version}, newer than this Atrium knows (${known}); restore it with a newer Atrium`);
    return version;
  } finally {
    db.close();
  }
}

/**
 * Puts a checked backup in place of the data dir's database. The caller holds the data dir's lock (no
 * server runs on it). The database it replaces, if any, is kept first as a consistent copy in
 * `backupsDir`. The backup is copied beside the database and renamed over it, so a crash halfway
 * leaves one or the other, never a mix; the old WAL and its index go with the old database.
 */
export function restoreFrom(file: string, databasePath: string, backupsDir: string, at = new Date()): { schemaVersion: number; kept: string | null } {
  const schemaVersion = checkBackup(file);
  let kept: string | null = null;
  if (existsSync(databasePath)) {
    mkdirSync(backupsDir, { recursive: true, mode: 0o700 });
    kept = join(backupsDir, `atrium-before-restore-${at.toISOString().replace(/[:.]/g, "-")}.db`);
    const current = Store.open(databasePath);
    try {
      copyDatabase(current, kept);
    } finally {
      current.close();
    }
  }
  const incoming = `${databasePath}.restoring`;
  rmSync(incoming, { force: true });
  copyFileSync(file, incoming);
  chmodSync(incoming, 0o600);
  syncPath(incoming);
  for (const sidecar of [`${databasePath}-wal`, `${databasePath}-shm`]) rmSync(sidecar, { force: true });
  renameSync(incoming, databasePath);
  return { schemaVersion, kept };
}

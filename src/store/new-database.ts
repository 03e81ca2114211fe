import { linkSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Store } from "./database.ts";
import { migrate, type Migration, type MigrationReport } from "./migrations.ts";
import { adoptSchemaImage } from "./schema-image.ts";
import { syncPath } from "./sync-path.ts";

export interface NewDatabaseOptions {
  /** The migrations to run; every one when absent. */
  list?: Migration[];
  /** A migrated empty database to start from (a compiled build's, schema-image.ts); the migrations it lacks run on it. */
  image?: Uint8Array;
}

/**
 * A database that does not exist yet is built beside its path with every migration, unsynced (nothing
 * in it can be lost yet), then synced once and put in place whole. Made in place, its header, journal
 * switch and first commit cost about ten fsyncs (a hundred milliseconds on a VM's disk) before the
 * first start could answer; and a start killed midway leaves no half-made database, only a scratch file
 * that the next first start removes. Undefined when the database exists already.
 */
export function createDatabaseIfMissing(path: string, { list, image }: NewDatabaseOptions = {}): MigrationReport | undefined {
  const existing = statSync(path, { throwIfNoEntry: false });
  // An empty file is what a start killed between creating the file and writing its first page leaves.
  if (existing && existing.size > 0) return undefined;
  const folder = dirname(path);
  const scratchPrefix = `${basename(path)}.new-`;
  for (const name of readdirSync(folder)) if (name.startsWith(scratchPrefix)) rmSync(join(folder, name), { force: true });
  const scratch = join(folder, `${scratchPrefix}${process.pid}`);
  try {
    if (image) writeFileSync(scratch, image, { mode: 0o600 });
    const store = Store.open(scratch, { synchronous: "OFF" });
    let report: MigrationReport;
    try {
      const fromImage = image ? adoptSchemaImage(store, new Date()) : [];
      const migrated = migrate(store, { list });
      report = { ...migrated, fromVersion: 0, applied: [...fromImage, ...migrated.applied] };
    } finally {
      // The last connection's close copies the WAL into the file and removes it: the file is the whole database.
      store.close();
    }
    syncPath(scratch);
    // A link never replaces a database another process made meanwhile; an empty leftover is replaced.
    if (existing) renameSync(scratch, path);
    else {
      try {
        linkSync(scratch, path);
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
        return undefined;
      }
    }
    syncPath(folder);
    return report;
  } finally {
    for (const file of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(file, { force: true });
  }
}

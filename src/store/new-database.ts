import { linkSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Store } from "./database.ts";
import { migrate, migrations, type Migration, type MigrationReport } from "./migrations.ts";
import type { SchemaImage } from "./schema-image.ts";
import { syncPath } from "./sync-path.ts";

export interface NewDatabaseOptions {
  /** The migrations to run; every one when absent. */
  list?: Migration[];
  /**
   * A migrated empty database to start from (a compiled build's, schema-image.ts): put in place as it is
   * when it has every migration, the ones it lacks run on it otherwise. Its migrations are not dated
   * here (dateSchemaImage, at the first open).
   */
  image?: SchemaImage;
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
  const folder = dirname(path);
  const scratchPrefix = `${basename(path)}.new-`;
  const scratches = () => readdirSync(folder).filter((name) => name.startsWith(scratchPrefix));
  // An empty file is what a start killed between creating the file and writing its first page leaves.
  if (existing && existing.size > 0) {
    // A start killed between linking its scratch file in and removing it left a second name for the database.
    for (const name of scratches())
      if (statSync(join(folder, name), { throwIfNoEntry: false })?.ino === existing.ino) rmSync(join(folder, name), { force: true });
    return undefined;
  }
  for (const name of scratches()) rmSync(join(folder, name), { force: true });
  const scratch = join(folder, `${scratchPrefix}${process.pid}`);
  try {
    const wanted = list ?? migrations;
    const fromImage = (image ? wanted.filter((migration) => migration.version <= image.version) : []).map(({ version, name }) => ({
      version,
      name,
      durationMs: 0,
    }));
    let report: MigrationReport = { fromVersion: 0, toVersion: image?.version ?? 0, applied: fromImage, backupPath: null };
    if (image) writeFileSync(scratch, image.bytes, { mode: 0o600 });
    // An image with every migration is not opened here: an open and a close cost more of a first start than the rest.
    if (!image || fromImage.length < wanted.length) {
      const store = Store.open(scratch, { synchronous: "OFF" });
      try {
        const migrated = migrate(store, { list });
        report = { ...migrated, fromVersion: 0, applied: [...fromImage, ...migrated.applied] };
      } finally {
        // The last connection's close copies the WAL into the file and removes it: the file is the whole database.
        store.close();
      }
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

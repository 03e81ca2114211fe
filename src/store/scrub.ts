import type { Database } from "bun:sqlite";

/**
 * Gives a deletion's free pages back to the file system and copies the WAL into the database and
 * empties it, so that what was deleted is in neither file (its cells were zeroed: secure_delete).
 * False when a reader kept the WAL busy.
 */
export function scrub(db: Database): boolean {
  db.exec("PRAGMA incremental_vacuum");
  return db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()?.busy === 0;
}

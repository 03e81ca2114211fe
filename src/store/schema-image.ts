import type { Store } from "./database.ts";

/** A migrated, empty database: its bytes, and the schema version its migrations reach. */
export interface SchemaImage {
  bytes: Uint8Array;
  version: number;
}

/**
 * The name of the file a compiled build embeds (release/compile.ts makes it by running the migrations
 * into a new database), with the version they reach: bun names it `<name>-<hash>.<ext>`.
 */
export const schemaImageName = (version: number): string => `atrium-schema-${version}.db`;
const EMBEDDED_NAME = /^atrium-schema-(\d+)-[0-9a-z]+\.db$/;

/**
 * The migrated, empty database this build carries, when the database does not exist yet: a first
 * start writes it instead of running every migration (about 20 ms of a 100 ms start). From source
 * there is none, and the migrations run.
 */
export async function embeddedSchemaImage(): Promise<SchemaImage | undefined> {
  for (const file of Bun.embeddedFiles) {
    const version = EMBEDDED_NAME.exec((file as File).name)?.[1];
    if (version !== undefined) return { bytes: await file.bytes(), version: Number(version) };
  }
  return undefined;
}

/**
 * Dates a database written from an image: its migrations were applied now, at its first open, not when
 * the build was made. Done on the open that serves (an image is put in place without being opened).
 */
export function dateSchemaImage(store: Store, now: Date): void {
  store.db.query("UPDATE schema_migrations SET applied_at = ?").run(now.toISOString());
}

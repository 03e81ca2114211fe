import type { Store } from "./database.ts";
import type { MigrationReport } from "./migrations.ts";

/**
 * The file a compiled build embeds (release/compile.ts makes it, named so, by running the migrations
 * into a new database): bun names an embedded file `<name>-<hash>.<ext>`.
 */
export const SCHEMA_IMAGE_NAME = "atrium-schema.db";
const EMBEDDED_NAME = /^atrium-schema-[0-9a-z]+\.db$/;

/**
 * The migrated, empty database this build carries, when the database does not exist yet: a first
 * start writes it instead of running every migration (about 20 ms of a 100 ms start). From source
 * there is none, and the migrations run.
 */
export async function embeddedSchemaImage(): Promise<Uint8Array | undefined> {
  const image = Bun.embeddedFiles.find((file) => EMBEDDED_NAME.test((file as File).name));
  return image ? await image.bytes() : undefined;
}

/**
 * What a database written from the image holds, told as a migration report: the image's migrations,
 * dated now (the database is made now, not when the build was). Run before the migrations the image
 * does not have (a build's own extra ones).
 */
export function adoptSchemaImage(store: Store, now: Date): MigrationReport["applied"] {
  store.db.query("UPDATE schema_migrations SET applied_at = ?").run(now.toISOString());
  return store.db
    .query<{ version: number; name: string }, []>("SELECT version, name FROM schema_migrations ORDER BY version")
    .all()
    .map((row) => ({ ...row, durationMs: 0 }));
}

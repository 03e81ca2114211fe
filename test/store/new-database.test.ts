import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { linkSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { currentSchemaVersion, latestSchemaVersion, migrations, type Migration } from "../../src/store/migrations.ts";
import { createDatabaseIfMissing } from "../../src/store/new-database.ts";
import { dateSchemaImage } from "../../src/store/schema-image.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { schemaOf } from "../helpers/test-store.ts";

/** Each test's own empty folder, and where the database goes in it. */
let dir = makeTempDir();
let path = join(dir.path, "atrium.db");
afterEach(() => {
  dir.remove();
  dir = makeTempDir();
  path = join(dir.path, "atrium.db");
});
afterAll(() => dir.remove());

const autoVacuum = (store: Store) => store.db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()?.auto_vacuum;

describe("a database made aside on the first start", () => {
  test("is put in place migrated, private, in WAL mode with incremental vacuum, and nothing else is left in the folder", () => {
    const report = createDatabaseIfMissing(path);
    expect(report?.fromVersion).toBe(0);
    expect(report?.applied.map((migration) => migration.version)).toEqual(migrations.map((migration) => migration.version));
    expect(readdirSync(dir.path)).toEqual(["atrium.db"]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const store = Store.open(path);
    expect(currentSchemaVersion(store)).toBe(latestSchemaVersion);
    expect(store.journalMode()).toBe("wal");
    // 2 = INCREMENTAL: set before the first page was written, as a database made in place gets it.
    expect(autoVacuum(store)).toBe(2);
    store.close();
  });

  test("an existing database is left as it is", () => {
    createDatabaseIfMissing(path);
    const store = Store.open(path);
    store.db.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('mine')");
    store.close();
    const before = readFileSync(path);
    expect(createDatabaseIfMissing(path)).toBeUndefined();
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("a start killed after linking its scratch file in leaves a second name for the database; the next start removes it", () => {
    createDatabaseIfMissing(path);
    linkSync(path, join(dir.path, "atrium.db.new-999999"));
    // Another process's scratch file that is not the database stays: that start may still be running.
    writeFileSync(join(dir.path, "atrium.db.new-999998"), "being made");
    const before = readFileSync(path);
    expect(createDatabaseIfMissing(path)).toBeUndefined();
    expect(readdirSync(dir.path).sort()).toEqual(["atrium.db", "atrium.db.new-999998"]);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  test("an empty file (a start killed before its first page) and a killed start's scratch file are replaced", () => {
    writeFileSync(path, "");
    writeFileSync(join(dir.path, "atrium.db.new-999999"), "half made");
    expect(createDatabaseIfMissing(path)?.toVersion).toBe(latestSchemaVersion);
    expect(readdirSync(dir.path)).toEqual(["atrium.db"]);
    expect(statSync(path).size).toBeGreaterThan(0);
  });

  test("from a migrated image (a compiled build's): the same schema, the ones it lacks run on it, its migrations dated at the first open", () => {
    const made = join(dir.path, "image.db");
    createDatabaseIfMissing(made, { list: migrations.slice(0, -1) });
    const image = { bytes: readFileSync(made), version: migrations.at(-2)!.version };
    const before = new Date().toISOString();
    const report = createDatabaseIfMissing(path, { image });
    expect(report?.fromVersion).toBe(0);
    expect(report?.applied.map((migration) => migration.version)).toEqual(migrations.map((migration) => migration.version));
    // Only the last one ran: the image had the others.
    expect(report?.applied.filter((migration) => migration.durationMs > 0).map((migration) => migration.version)).toEqual([latestSchemaVersion]);
    const fromSource = join(dir.path, "source.db");
    createDatabaseIfMissing(fromSource);
    expect(schemaOf(path)).toEqual(schemaOf(fromSource));
    const store = Store.open(path);
    dateSchemaImage(store, new Date());
    const dates = store.db.query<{ applied_at: string }, []>("SELECT applied_at FROM schema_migrations").all();
    expect(dates.every((row) => row.applied_at >= before)).toBe(true);
    expect(autoVacuum(store)).toBe(2);
    store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("an image with every migration is put in place byte for byte, and its report names them all", () => {
    const made = join(dir.path, "image.db");
    createDatabaseIfMissing(made);
    const image = { bytes: readFileSync(made), version: latestSchemaVersion };
    const report = createDatabaseIfMissing(path, { image });
    expect(readFileSync(path).equals(image.bytes)).toBe(true);
    expect(readdirSync(dir.path).sort()).toEqual(["atrium.db", "image.db"]);
    expect(report?.applied.map((migration) => [migration.version, migration.durationMs])).toEqual(migrations.map((migration) => [migration.version, 0]));
    expect(report?.toVersion).toBe(latestSchemaVersion);
  });

  test("a migration that fails leaves no database and no scratch file", () => {
    const failing: Migration[] = [...migrations.slice(0, 2), { version: 99, name: "broken", sql: "CREATE TABLE nope (" }];
    expect(() => createDatabaseIfMissing(path, { list: failing })).toThrow();
    expect(readdirSync(dir.path)).toEqual([]);
  });
});

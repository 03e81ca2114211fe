import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { Store } from "../../src/store/database.ts";
import { currentSchemaVersion, latestSchemaVersion, migrate, migrations, type Migration, type MigrationStepProgress } from "../../src/store/migrations.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

let dir: ReturnType<typeof makeTempDir>;
let path: string;
beforeEach(() => {
  dir = makeTempDir();
  path = join(dir.path, "atrium.db");
});
afterEach(() => dir.remove());

const tableNames = (store: Store) =>
  store.db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);

describe("migrations", () => {
  test("a new database is brought to the latest version, in WAL mode", () => {
    const store = Store.open(path);
    const report = migrate(store);
    expect(report.fromVersion).toBe(0);
    expect(report.toVersion).toBe(latestSchemaVersion);
    expect(report.applied.map((m) => m.version)).toEqual(migrations.map((m) => m.version));
    expect(store.journalMode()).toBe("wal");
    expect(tableNames(store)).toContain("events");
    store.close();
  });

  test("running again applies nothing", () => {
    const store = Store.open(path);
    migrate(store);
    expect(migrate(store).applied).toEqual([]);
    store.close();
  });

  test("only the missing migrations run, in order", () => {
    const extra: Migration[] = [
      ...migrations,
      { version: latestSchemaVersion + 1, name: "add a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: latestSchemaVersion + 2, name: "add b", sql: "CREATE TABLE b (y INTEGER)" },
    ];
    const store = Store.open(path);
    migrate(store);
    const report = migrate(store, { list: extra });
    expect(report.applied.map((m) => m.name)).toEqual(["add a", "add b"]);
    expect(currentSchemaVersion(store)).toBe(latestSchemaVersion + 2);
    store.close();
  });

  test("a failing migration rolls back every pending one, leaving the database as it was", () => {
    const broken: Migration[] = [
      ...migrations,
      { version: latestSchemaVersion + 1, name: "fine", sql: "CREATE TABLE fine (x INTEGER)" },
      { version: latestSchemaVersion + 2, name: "half", sql: "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);" },
    ];
    const store = Store.open(path);
    migrate(store);
    expect(() => migrate(store, { list: broken })).toThrow("no such table: nowhere");
    expect(currentSchemaVersion(store)).toBe(latestSchemaVersion);
    expect(tableNames(store)).not.toContain("fine");
    expect(tableNames(store)).not.toContain("half");
    store.close();
  });

  test("progress is told before the backup and each migration, and once at the end", () => {
    const store = Store.open(path);
    migrate(store);
    const list: Migration[] = [
      ...migrations,
      { version: latestSchemaVersion + 1, name: "add a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: latestSchemaVersion + 2, name: "add b", sql: "CREATE TABLE b (y INTEGER)" },
    ];
    const steps: MigrationStepProgress[] = [];
    migrate(store, { list, backupDir: join(dir.path, "backups"), onProgress: (step) => steps.push(step) });
    expect(steps).toEqual([
      { done: 0, total: 3, current: `backing up the database at schema ${latestSchemaVersion}` },
      { done: 1, total: 3, current: `migration ${latestSchemaVersion + 1} (add a)` },
      { done: 2, total: 3, current: `migration ${latestSchemaVersion + 2} (add b)` },
      { done: 3, total: 3 },
    ]);
    store.close();
  });

  test("a database from a newer Atrium is refused, not guessed at", () => {
    const store = Store.open(path);
    migrate(store);
    store.db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00Z')");
    expect(() => migrate(store)).toThrow("newer than this Atrium knows");
    store.close();
  });
});

describe("store transactions", () => {
  test("onCommit callbacks run after commit, and not after a rollback", () => {
    const store = Store.open(path);
    migrate(store);
    const ran: string[] = [];
    store.transaction(() => store.onCommit(() => ran.push("committed")));
    expect(() =>
      store.transaction(() => {
        store.onCommit(() => ran.push("rolled back"));
        throw new Error("no");
      }),
    ).toThrow("no");
    expect(ran).toEqual(["committed"]);
    expect(() => store.onCommit(() => {})).toThrow("outside a transaction");
    store.close();
  });
});

describe("backups before a migration", () => {
  const upgrade = (version: number): Migration[] => [...migrations, { version, name: `v${version}`, sql: `CREATE TABLE t${version} (x INTEGER)` }];

  test("an existing database is copied before its schema changes; a new one and an up-to-date one are not", () => {
    const backups = join(dir.path, "backups");
    const store = Store.open(path);
    expect(migrate(store, { backupDir: backups }).backupPath).toBeNull();
    store.db.exec("INSERT INTO meta (key, value) VALUES ('kept', 'yes')");
    expect(migrate(store, { backupDir: backups }).backupPath).toBeNull();

    const report = migrate(store, { list: upgrade(latestSchemaVersion + 1), backupDir: backups });
    expect(report.backupPath).toContain(`atrium-schema${latestSchemaVersion}-`);
    const copy = Store.open(report.backupPath!);
    expect(currentSchemaVersion(copy)).toBe(latestSchemaVersion);
    expect(copy.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'kept'").get()?.value).toBe("yes");
    expect(tableNames(copy)).not.toContain(`t${latestSchemaVersion + 1}`);
    copy.close();
    store.close();
  });

  test("a database made without auto_vacuum is rewritten once to give deleted space back", () => {
    // As an earlier Atrium made it: pages written before auto_vacuum was ever set.
    const older = new Database(path);
    older.exec("PRAGMA journal_mode = WAL; CREATE TABLE filler (x BLOB)");
    older.close();
    const store = Store.open(path);
    migrate(store, { list: migrations.slice(0, -1) });
    const autoVacuum = () => store.db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()?.auto_vacuum;
    expect(autoVacuum()).toBe(0);
    const steps: MigrationStepProgress[] = [];
    migrate(store, { backupDir: join(dir.path, "backups"), onProgress: (step) => steps.push(step) });
    expect(autoVacuum()).toBe(2);
    expect(steps.some((step) => step.current?.includes("gives its space back"))).toBe(true);
    // Freed pages now leave the file.
    const pages = () => store.db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
    const empty = pages();
    store.db.exec(
      "INSERT INTO filler SELECT randomblob(4000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) SELECT i FROM n)",
    );
    expect(pages()).toBeGreaterThan(empty + 400);
    store.db.exec("DELETE FROM filler");
    store.db.exec("PRAGMA incremental_vacuum");
    expect(pages()).toBe(empty);
    store.close();
  });

  test("only the newest three backups are kept", () => {
    const backups = join(dir.path, "backups");
    const store = Store.open(path);
    migrate(store);
    let list = migrations;
    for (let step = 1; step <= 5; step++) {
      list = [...list, { version: latestSchemaVersion + step, name: `s${step}`, sql: `CREATE TABLE s${step} (x INTEGER)` }];
      migrate(store, { list, backupDir: backups, now: () => new Date(Date.UTC(2026, 0, step)) });
    }
    const kept = readdirSync(backups).map((name) => Number(name.match(/schema(\d+)/)![1]));
    expect(kept).toHaveLength(3);
    // By number: schema 9 comes before schema 10.
    expect(kept.sort((a, b) => a - b)).toEqual([2, 3, 4].map((step) => latestSchemaVersion + step));
    store.close();
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../src/logging/logger.ts";
import { detectRestartMode, judgeHealth } from "../../src/update/restart.ts";
import { MAX_SUPERVISED_STARTS, UpdateStartupGuard } from "../../src/update/startup-guard.ts";
import { UpdateStateFiles, type PendingUpdate } from "../../src/update/update-state-files.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { Store } from "../../src/store/database.ts";
import { currentSchemaVersion, latestSchemaVersion, migrate, migrations, type Migration } from "../../src/store/migrations.ts";
import { recordUpdateMigration } from "../../src/update/update-startup.ts";

const quiet: Logger = { enabled: () => false, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const newBuild = { version: "1.1.0", buildNumber: 2, channel: "stable" };

let dir: ReturnType<typeof makeTempDir>;
let state: UpdateStateFiles;
let executable: string;

function pending(overrides: Partial<PendingUpdate> = {}): PendingUpdate {
  return {
    fromVersion: "1.0.0",
    fromBuildNumber: 1,
    targetVersion: "1.1.0",
    targetBuildNumber: 2,
    executable,
    previous: `${executable}.previous`,
    restartMode: "systemd",
    attempts: 0,
    startedAt: new Date().toISOString(),
    ...overrides,
  };
}

beforeEach(() => {
  dir = makeTempDir("atrium-update-guard-");
  state = new UpdateStateFiles(dir.path);
  executable = join(dir.path, "atrium");
  writeFileSync(executable, "new build");
  writeFileSync(`${executable}.previous`, "old build");
});
afterEach(() => dir.remove());

describe("the start-up guard of a supervised update", () => {
  test("counts the new build's start-ups and, when it cannot start, puts the previous executable back", () => {
    state.writePending(pending());
    const guard = UpdateStartupGuard.begin(state, newBuild, quiet);
    expect(guard).toBeDefined();
    expect(state.readPending()?.attempts).toBe(1);
    guard!.startFailed(new Error("the database is locked"));
    expect(readFileSync(executable, "utf8")).toBe("old build");
    expect(existsSync(`${executable}.previous`)).toBe(false);
    expect(state.readPending()).toBeUndefined();
    expect(state.readLastApply()).toMatchObject({
      state: "failed",
      targetVersion: "1.1.0",
      message: "the new server failed to start: the database is locked; restored 1.0.0 (build 1), which starts next",
    });
  });

  test(`rolls back at the start after ${MAX_SUPERVISED_STARTS} start-ups that never became healthy (crashes)`, () => {
    state.writePending(pending({ attempts: MAX_SUPERVISED_STARTS }));
    expect(() => UpdateStartupGuard.begin(state, newBuild, quiet)).toThrow(`stopped before becoming healthy ${MAX_SUPERVISED_STARTS} times`);
    expect(readFileSync(executable, "utf8")).toBe("old build");
    expect(state.readLastApply()?.state).toBe("failed");
  });

  test("a new build that migrated the database and then failed to start puts the database from before back too", () => {
    const database = join(dir.path, "atrium.db");
    const store = Store.open(database);
    migrate(store);
    store.db.run("INSERT INTO meta (key, value) VALUES ('kept', 'yes')");
    const next: Migration = { version: latestSchemaVersion + 1, name: "next", sql: "CREATE TABLE next_release (x INTEGER)" };
    state.writePending(pending());
    const guard = UpdateStartupGuard.begin(state, newBuild, quiet);
    const report = migrate(store, { list: [...migrations, next], backupDir: join(dir.path, "backups") });
    recordUpdateMigration(dir.path, { path: database, backup: report.backupPath! }, { ...newBuild, commit: "", compiled: true });
    store.close();

    guard!.startFailed(new Error("a route could not be built"));
    expect(readFileSync(executable, "utf8")).toBe("old build");
    const restored = Store.open(database);
    expect(currentSchemaVersion(restored)).toBe(latestSchemaVersion);
    expect(restored.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'kept'").get()?.value).toBe("yes");
    restored.close();
    const aside = readdirSync(join(dir.path, "backups")).filter((name) => name.startsWith("atrium-rolled-back-"));
    expect(aside).toHaveLength(1);
    const migrated = Store.open(join(dir.path, "backups", aside[0]!));
    expect(currentSchemaVersion(migrated)).toBe(latestSchemaVersion + 1);
    migrated.close();
    expect(state.readLastApply()?.message).toContain(
      `restored 1.0.0 (build 1) and its database from before the migration (the migrated one is kept as ${join(dir.path, "backups", aside[0]!)}), which starts next`,
    );
  });

  test("stays out of a re-executed update (its old process watches) and of another build's start", () => {
    state.writePending(pending({ restartMode: "reexec" }));
    expect(UpdateStartupGuard.begin(state, newBuild, quiet)).toBeUndefined();
    state.writePending(pending());
    expect(UpdateStartupGuard.begin(state, { ...newBuild, buildNumber: 1, version: "1.0.0" }, quiet)).toBeUndefined();
    expect(state.readPending()?.attempts).toBe(0);
    expect(readFileSync(executable, "utf8")).toBe("new build");
  });
});

describe("restart mode", () => {
  test("follows install.sh's ATRIUM_SUPERVISOR, then systemd's and launchd's own variables", () => {
    expect(detectRestartMode({ ATRIUM_SUPERVISOR: "systemd" })).toBe("systemd");
    expect(detectRestartMode({ ATRIUM_SUPERVISOR: "launchd" })).toBe("launchd");
    expect(detectRestartMode({ ATRIUM_SUPERVISOR: "none", INVOCATION_ID: "abc" })).toBe("reexec");
    expect(detectRestartMode({ INVOCATION_ID: "abc" })).toBe("systemd");
    expect(detectRestartMode({ XPC_SERVICE_NAME: "dev.atrium.server" })).toBe("launchd");
    // Terminal.app sets XPC_SERVICE_NAME too; only install.sh's label means launchd runs the server.
    expect(detectRestartMode({ XPC_SERVICE_NAME: "application.com.apple.Terminal.1234" })).toBe("reexec");
    expect(detectRestartMode({})).toBe("reexec");
  });
});

describe("what the re-exec watchdog reads from the new build's health", () => {
  const target = { version: "1.1.0", buildNumber: 2, channel: "stable" };
  const answer = (status: string, migration: { state: string; detail?: string }, release = target) => ({ status, release, migration });

  test("healthy only when the target build answers ok with no migration left", () => {
    expect(judgeHealth(answer("ok", { state: "idle" }), pending())).toEqual({ state: "healthy" });
    expect(judgeHealth(answer("ok", { state: "idle" }, { version: "1.0.0", buildNumber: 1, channel: "stable" }), pending())).toEqual({ state: "waiting" });
    expect(judgeHealth(answer("degraded", { state: "idle" }), pending())).toEqual({ state: "waiting" });
    expect(judgeHealth(undefined, pending())).toEqual({ state: "waiting" });
  });

  test("a running migration keeps the wait going; a failed one ends it with the reason", () => {
    expect(judgeHealth(answer("degraded", { state: "running" }), pending())).toEqual({ state: "migrating" });
    expect(judgeHealth(answer("degraded", { state: "failed", detail: "disk full" }), pending())).toEqual({
      state: "failed",
      reason: "could not migrate the database: disk full",
    });
  });
});

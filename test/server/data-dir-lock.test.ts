import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireDataDirLock } from "../../src/server/data-dir-lock.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { runAtrium, sourceCommand, startServe } from "../helpers/cli-process.ts";

describe("data dir lock", () => {
  test("is exclusive while held, released on request, and taken over from a dead process", () => {
    const dir = makeTempDir();
    const lock = join(dir.path, "server.lock");
    const release = acquireDataDirLock(lock);
    expect(readFileSync(lock, "utf8").trim()).toBe(String(process.pid));
    release();
    expect(existsSync(lock)).toBe(false);
    // A pid that cannot be running: the lock is stale and is taken over.
    writeFileSync(lock, "2147483646\n");
    const again = acquireDataDirLock(lock);
    expect(readFileSync(lock, "utf8").trim()).toBe(String(process.pid));
    again();
    dir.remove();
  });

  test("a second server on the same data dir stops before touching anything of the first", async () => {
    const home = makeTempDir();
    const first = await startServe(sourceCommand, home.path);
    const inFlightClone = join(home.path, "projects", ".clone-tmp_inflight");
    mkdirSync(inFlightClone);
    const second = await runAtrium(sourceCommand, ["serve", "--port", "0"], home.path);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another atrium (pid ${first.child.pid}) is using this data dir`);
    expect(existsSync(inFlightClone)).toBe(true);
    first.child.kill("SIGTERM");
    expect(await first.child.exited).toBe(0);
    expect(existsSync(join(home.path, "server.lock"))).toBe(false);
    home.remove();
  });
});

test("a start that fails even before the database opens leaves no lock behind", async () => {
  const { AtriumServer } = await import("../../src/server/atrium-server.ts");
  const home = makeTempDir();
  mkdirSync(join(home.path, "atrium.db")); // a folder where the database file should be
  await expect(AtriumServer.start({ dataDir: home.path, host: "127.0.0.1", port: 0, logLevel: "info", echoLogs: false })).rejects.toThrow();
  expect(existsSync(join(home.path, "server.lock"))).toBe(false);
  home.remove();
});

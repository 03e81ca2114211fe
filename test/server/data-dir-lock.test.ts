import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acquireDataDirLock, DataDirBusyError } from "../../src/server/data-dir-lock.ts";
import { startMark } from "../../src/process/child-processes.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { runAtrium, builtCommand, startServe } from "../helpers/cli-process.ts";

describe("data dir lock", () => {
  test("is exclusive while held, released on request, and taken over from a dead process", () => {
    const dir = makeTempDir();
    const lock = join(dir.path, "server.lock");
    const release = acquireDataDirLock(lock);
    expect(readFileSync(lock, "utf8")).toBe(`${process.pid}\n${startMark(process.pid)}\n`);
    release();
    expect(existsSync(lock)).toBe(false);
    // A pid that cannot be running: the lock is stale and is taken over.
    writeFileSync(lock, "2147483646\n");
    const again = acquireDataDirLock(lock);
    expect(readFileSync(lock, "utf8")).toStartWith(`${process.pid}\n`);
    again();
    dir.remove();
  });

  test("a lock whose pid now belongs to another process is taken over; its live writer's lock is not", async () => {
    const dir = makeTempDir();
    const lock = join(dir.path, "server.lock");
    const other = Bun.spawn(["sleep", "30"]);
    try {
      // As after a kill -9 and a reboot: the pid runs, but it is not the process that wrote the lock.
      writeFileSync(lock, `${other.pid}\nnot-when-it-started\n`);
      const release = acquireDataDirLock(lock);
      expect(readFileSync(lock, "utf8")).toStartWith(`${process.pid}\n`);
      release();
      // The same pid with its real start time is a live holder.
      writeFileSync(lock, `${other.pid}\n${startMark(other.pid)}\n`);
      expect(() => acquireDataDirLock(lock)).toThrow(new DataDirBusyError(`another atrium (pid ${other.pid}) is using this data dir`));
      // An older build's lock names only the pid: a live one is respected.
      writeFileSync(lock, `${other.pid}\n`);
      expect(() => acquireDataDirLock(lock)).toThrow(DataDirBusyError);
      expect(readFileSync(lock, "utf8")).toBe(`${other.pid}\n`);
    } finally {
      other.kill("SIGKILL");
      await other.exited;
      dir.remove();
    }
  });

  test("a second server on the same data dir stops before touching anything of the first", async () => {
    const home = makeTempDir();
    const first = await startServe(builtCommand, home.path);
    const inFlightClone = join(home.path, "projects", ".clone-tmp_inflight");
    mkdirSync(inFlightClone);
    const second = await runAtrium(builtCommand, ["serve", "--port", "0"], home.path);
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
  await expect(AtriumServer.start({ dataDir: home.path, host: "127.0.0.1", port: 0, logLevel: "info", echoLogs: false, config: {} })).rejects.toThrow();
  expect(existsSync(join(home.path, "server.lock"))).toBe(false);
  home.remove();
});

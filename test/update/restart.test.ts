import { afterEach, expect, test } from "bun:test";
import { processAlive } from "../helpers/processes.ts";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataPaths } from "../../src/config/paths.ts";
import { readRuntimeFile } from "../../src/config/runtime-file.ts";
import { until } from "../helpers/poll.ts";
import type { Logger } from "../../src/logging/logger.ts";
import { restartIntoNewBuild } from "../../src/update/restart.ts";
import { type PendingUpdate, UpdateStateFiles } from "../../src/update/update-state-files.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The re-exec watchdog: the old process starts the new build and waits for its health; one that never
// answers is killed when the time is up and the previous build is put back and started. The builds
// are real processes; the watchdog's clock is the test's, so the minute passes at once.

const quiet: Logger = { enabled: () => false, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const HEALTH_TIMEOUT_MS = 60_000;

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const started: number[] = [];
const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const dir of dirs.splice(0)) dir.remove();
});

test("a new build that never becomes healthy is killed when the health timeout passes, and the previous build is put back and started", async () => {
  const dir = makeTempDir("atrium-restart-");
  dirs.push(dir);
  const dataDir = join(dir.path, "data");
  const executable = join(dir.path, "atrium");
  const previous = join(dir.path, "atrium.previous");
  // install.sh's pid file: the watchdog writes each build it starts there, which is how the test finds them.
  const pidFile = join(dataDir, "atrium.pid");
  const runtimeFile = dataPaths(dataDir).runtime;
  Bun.spawnSync(["mkdir", "-p", dataDir]);
  writeFileSync(pidFile, "");
  writeFileSync(executable, "#!/bin/sh\necho 'new build: hanging instead of serving' >&2\nexec sleep 600\n", { mode: 0o755 });
  // The previous build says it listens, as a server does, and then serves on.
  writeFileSync(
    previous,
    `#!/bin/sh\nprintf '{"pid": %s, "url": "http://127.0.0.1:9", "host": "127.0.0.1", "port": 9, "startedAt": "x", "version": "1.0.0"}' $$ > '${runtimeFile}'\nexec sleep 600\n`,
    { mode: 0o755 },
  );
  const pending: PendingUpdate = {
    fromVersion: "1.0.0",
    fromBuildNumber: 1,
    targetVersion: "1.1.0",
    targetBuildNumber: 2,
    executable,
    previous,
    restartMode: "reexec",
    attempts: 0,
    startedAt: new Date().toISOString(),
  };
  const state = new UpdateStateFiles(dataDir);
  state.writePending(pending);
  const clock = new ManualClock();
  let serverStopped = false;
  const outcome = restartIntoNewBuild({
    mode: "reexec",
    pending,
    dataDir,
    serveArgs: ["serve"],
    healthTimeoutMs: HEALTH_TIMEOUT_MS,
    stopServer: async () => {
      serverStopped = true;
    },
    state,
    logger: quiet,
    clock,
    exit: (code) => {
      throw new Exited(code);
    },
  }).catch((error: unknown) => error);

  const pidIn = async (previousPid: number) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      if (pid > 0 && pid !== previousPid) return pid;
      await Bun.sleep(10);
    }
    throw new Error("no build was started");
  };
  const newBuild = await pidIn(0);
  started.push(newBuild);
  expect(serverStopped).toBe(true);

  // A second short of the timeout the new build still runs, and nothing is rolled back.
  await clock.advance(HEALTH_TIMEOUT_MS - 1_000);
  expect(processAlive(newBuild)).toBe(true);
  expect(readFileSync(executable, "utf8")).toContain("new build");
  expect(state.readPending()).toBeDefined();

  await clock.advance(1_000);
  const restored = await pidIn(newBuild);
  started.push(restored);
  // Real time for the restored build to start and say so; only then is the watchdog's clock moved on.
  await until(
    async () => readRuntimeFile(runtimeFile)?.pid,
    (pid) => pid === restored,
    10_000,
  );
  // The restored build is watched until it says it listens; the watchdog then ends with 0.
  let result: unknown;
  void outcome.then((value) => {
    result = value;
  });
  for (let step = 0; step < 100 && result === undefined; step++) await clock.advance(250);
  expect(result).toBeInstanceOf(Exited);
  expect((result as Exited).code).toBe(0);

  expect(processAlive(newBuild)).toBe(false);
  expect(processAlive(restored)).toBe(true);
  expect(readFileSync(executable, "utf8")).toContain("1.0.0");
  expect(existsSync(previous)).toBe(false);
  expect(state.readPending()).toBeUndefined();
  expect(state.readLastApply()).toMatchObject({
    state: "failed",
    targetVersion: "1.1.0",
    message: "the new server 1.1.0 (build 2) did not become healthy within 60 s; restored 1.0.0 (build 1)",
  });
});

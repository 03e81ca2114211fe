import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataPaths } from "../config/paths.ts";
import { readRuntimeFile } from "../config/runtime-file.ts";
import type { Logger } from "../logging/logger.ts";
import type { Clock } from "../clock.ts";
import { describeRelease } from "./release-order.ts";
import { rollBackUpdate } from "./roll-back.ts";
import type { PendingUpdate, UpdateStateFiles } from "./update-state-files.ts";

/**
 * Starting the new build once it is swapped in. Under a service manager the server exits with
 * SUPERVISOR_RESTART_EXIT_CODE and the manager starts the (new) executable again; otherwise the old
 * process re-executes: it stops its server (port, data-dir lock and database released), starts the
 * new executable with the same arguments, and stays on as a watchdog until the new server answers
 * health with the new version. A new server that exits or does not become healthy in time is killed,
 * the previous executable is put back and started again, and the apply is recorded as failed.
 */

/** install.sh's units restart on it (`RestartForceExitStatus=75`, launchd KeepAlive on failure). */
export const SUPERVISOR_RESTART_EXIT_CODE = 75;

export type RestartMode = PendingUpdate["restartMode"];

/** The label install.sh gives its launchd agent; launchd puts it in XPC_SERVICE_NAME. */
const LAUNCHD_LABEL = "dev.atrium.server";

/**
 * How this process was started: install.sh's units say so in ATRIUM_SUPERVISOR; otherwise systemd
 * sets INVOCATION_ID for its services, and launchd sets XPC_SERVICE_NAME to the job's label.
 */
export function detectRestartMode(env: Record<string, string | undefined> = process.env): RestartMode {
  const declared = env.ATRIUM_SUPERVISOR;
  if (declared === "systemd" || declared === "launchd") return declared;
  if (declared === "none") return "reexec";
  if (env.INVOCATION_ID) return "systemd";
  if (env.XPC_SERVICE_NAME === LAUNCHD_LABEL) return "launchd";
  return "reexec";
}

export interface RestartRequest {
  mode: RestartMode;
  pending: PendingUpdate;
  dataDir: string;
  /** The server's own arguments (`serve --port …`), given to the new executable unchanged. */
  serveArgs: string[];
  /** How long the new server has to answer health with the new version before it is rolled back. */
  healthTimeoutMs: number;
  stopServer(): Promise<void>;
  state: UpdateStateFiles;
  logger: Logger;
  /** Times the health wait, the stop of a new build that failed and the restart of the previous one. */
  clock: Clock;
  exit(code: number): never;
}

/** Where install.sh keeps the pid of the server it started in the background (no service manager). */
const INSTALLER_PID_FILE = "atrium.pid";
/** A look is a file read and a loopback request: cheap enough to take often, so the switch is noticed soon. */
const HEALTH_POLL_MS = 50;
const STOP_GRACE_MS = 5_000;
const RESTORED_START_WAIT_MS = 15_000;

export async function restartIntoNewBuild(request: RestartRequest): Promise<never> {
  const { pending, logger } = request;
  await request.stopServer();
  if (request.mode !== "reexec") {
    logger.info("exiting for the service manager to start the new build", { mode: request.mode, exitCode: SUPERVISOR_RESTART_EXIT_CODE });
    return request.exit(SUPERVISOR_RESTART_EXIT_CODE);
  }
  const child = startServer(pending.executable, request.serveArgs, request.dataDir);
  logger.info("started the new build; waiting for it to become healthy", { pid: child.pid, timeoutMs: request.healthTimeoutMs });
  const failure = await waitUntilHealthy(child, request);
  if (failure === undefined) {
    logger.info("the new build is healthy; this process ends", { pid: child.pid, version: pending.targetVersion });
    return request.exit(0);
  }
  await stopProcessGroup(child, request.clock);
  // Read again: the new build records there whether it migrated the database.
  rollBackUpdate(request.state.readPending() ?? pending, request.state, logger, failure);
  const again = startServer(pending.executable, request.serveArgs, request.dataDir);
  const listening = await waitForRuntimeFile(request.dataDir, again, RESTORED_START_WAIT_MS, request.clock);
  logger.info(listening ? "the previous build is running again" : "the previous build was started but has not said it is listening", { pid: again.pid });
  return request.exit(listening ? 0 : 1);
}

/** In its own session, so it outlives this process and can be stopped as a group; output goes where ours went. */
function startServer(executable: string, serveArgs: string[], dataDir: string): Bun.Subprocess {
  const child = Bun.spawn([executable, ...serveArgs], { detached: true, stdin: "ignore", stdout: "inherit", stderr: "inherit", env: process.env });
  child.unref();
  // install.sh's background server is found (and stopped on the next install) by this pid file.
  const pidFile = join(dataDir, INSTALLER_PID_FILE);
  if (existsSync(pidFile)) writeFileSync(pidFile, `${child.pid}\n`);
  return child;
}

/**
 * Undefined once the new server answers health with the target build; otherwise why it did not. A
 * database migration may take longer than the timeout: while the new server reports one running, it
 * is alive and making progress, so the wait goes on.
 */
async function waitUntilHealthy(child: Bun.Subprocess, request: RestartRequest): Promise<string | undefined> {
  const { pending, clock } = request;
  const target = describeRelease({ version: pending.targetVersion, buildNumber: pending.targetBuildNumber });
  let deadline = clock.now() + request.healthTimeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (clock.now() < deadline) {
    if (exited) return `the new server ${target} exited with ${child.exitCode ?? child.signalCode} before it became healthy`;
    const verdict = judgeHealth(await fetchHealth(request.dataDir, child.pid), pending);
    if (verdict.state === "healthy") return undefined;
    if (verdict.state === "failed") return `the new server ${target} ${verdict.reason}`;
    if (verdict.state === "migrating") deadline = clock.now() + request.healthTimeoutMs;
    await clock.sleep(HEALTH_POLL_MS);
  }
  return `the new server ${target} did not become healthy within ${Math.round(request.healthTimeoutMs / 1000)} s`;
}

/** The parts of a health answer the watchdog reads (older builds may lack some). */
export interface HealthAnswer {
  status?: string;
  release?: { version?: string; buildNumber?: number };
  migration?: { state?: string; detail?: string };
}

export type HealthVerdict = { state: "healthy" } | { state: "migrating" } | { state: "waiting" } | { state: "failed"; reason: string };

/** What a health answer (or its absence) says of the new build. */
export function judgeHealth(health: HealthAnswer | undefined, pending: PendingUpdate): HealthVerdict {
  if (!health || health.release?.version !== pending.targetVersion || health.release.buildNumber !== pending.targetBuildNumber) {
    return { state: "waiting" };
  }
  if (health.migration?.state === "failed")
    return { state: "failed", reason: `could not migrate the database: ${health.migration.detail ?? "no detail given"}` };
  if (health.migration?.state === "running") return { state: "migrating" };
  return health.status === "ok" ? { state: "healthy" } : { state: "waiting" };
}

async function fetchHealth(dataDir: string, pid: number): Promise<HealthAnswer | undefined> {
  const paths = dataPaths(dataDir);
  const runtime = readRuntimeFile(paths.runtime);
  if (!runtime || runtime.pid !== pid) return undefined;
  try {
    // The admin token, in case the server listens on an address where health needs one.
    const token = readFileSync(paths.adminToken, "utf8").trim();
    const response = await fetch(`${runtime.url}/v1/health`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(2_000) });
    return response.ok ? ((await response.json()) as HealthAnswer) : undefined;
  } catch {
    return undefined;
  }
}

async function stopProcessGroup(child: Bun.Subprocess, clock: Clock): Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  signalGroup("SIGTERM");
  const stopped = await Promise.race([child.exited.then(() => true), clock.sleep(STOP_GRACE_MS).then(() => false)]);
  if (!stopped) {
    signalGroup("SIGKILL");
    await child.exited;
  }
}

async function waitForRuntimeFile(dataDir: string, child: Bun.Subprocess, timeoutMs: number, clock: Clock): Promise<boolean> {
  const deadline = clock.now() + timeoutMs;
  while (clock.now() < deadline) {
    if (readRuntimeFile(dataPaths(dataDir).runtime)?.pid === child.pid) return true;
    if (child.exitCode !== null || child.signalCode !== null) return false;
    await clock.sleep(HEALTH_POLL_MS);
  }
  return false;
}

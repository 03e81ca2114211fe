import { defineCommand } from "citty";
import { readOrCreateAdminToken } from "../auth/access-tokens.ts";
import type { ConfigFile } from "../config/config.ts";
import type { DataPaths } from "../config/paths.ts";
import { readRuntimeFile } from "../config/runtime-file.ts";
import type { UpdateStatus } from "../schemas/update.ts";
import { buildInfo } from "../system/build-info.ts";
import { installedPlatformKey, type ReleaseChannel } from "../update/manifest.ts";
import { embeddedUpdatePublicKey } from "../update/update-key.ts";
import { swapInExecutable } from "../update/executable-swap.ts";
import { ProgressDisplay } from "../update/progress-display.ts";
import { describeRelease } from "../update/release-order.ts";
import { selfUpdateCapability } from "../update/self-update.ts";
import { stageUpdate } from "../update/stage-update.ts";
import { updateSettingsFromConfig } from "../update/update-config.ts";
import { UpdateChecker, type CheckResult } from "../update/update-checker.ts";
import { UpdateStateFiles } from "../update/update-state-files.ts";
import { CliError, cliConfig, cliPaths, runCli } from "./cli-context.ts";

const REQUEST_TIMEOUT_MS = 5_000;
const CHECK_TIMEOUT_MS = 30_000;
/** The progress moves smoothly and the end is seen at once; a GET on the local server costs next to nothing. */
const POLL_MS = 100;
/** Download, checks and restart together; a restart alone is given RESTART_WAIT_MS once it begins. */
const APPLY_WAIT_MS = 30 * 60_000;
const RESTART_WAIT_MS = 3 * 60_000;

interface RunningServer {
  url: () => string;
  token: string;
}

interface UpdateRequest {
  channel: ReleaseChannel;
  checkOnly: boolean;
}

/**
 * `atrium update [--alpha] [--check]`: a fresh check of the stable channel (with --alpha, of both,
 * taking the newer), then the update. With a server running, the server applies it (it refuses while
 * a prompt is in flight, and restarts into the new build); without one, this command replaces the
 * executable itself.
 */
export const updateCommand = defineCommand({
  meta: { name: "update", description: "Update Atrium to the latest stable release (--alpha: or alpha, whichever is newer)" },
  args: {
    alpha: { type: "boolean", description: "Also consider alpha releases and take the newer build" },
    check: { type: "boolean", description: "Only check and say what would be installed" },
  },
  run: ({ args }) =>
    runCli(async () => {
      const paths = cliPaths();
      const config = cliConfig(paths);
      const request: UpdateRequest = { channel: args.alpha ? "alpha" : "stable", checkOnly: args.check === true };
      const server = await findRunningServer(paths);
      if (server) await updateThroughServer(server, request);
      else await updateDirectly(paths, config, request);
    }),
});

async function callServer(
  server: RunningServer,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url()}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const errorOf = (body: unknown, status: number): string => (body as { error?: string }).error ?? `HTTP ${status}`;

/** The server of this data dir, found through its server.json, when it answers. */
async function findRunningServer(paths: DataPaths): Promise<RunningServer | undefined> {
  const initial = readRuntimeFile(paths.runtime)?.url;
  if (!initial) return undefined;
  // Read each time: a server restarted on port 0 comes back on another port.
  const server: RunningServer = { url: () => readRuntimeFile(paths.runtime)?.url ?? initial, token: readOrCreateAdminToken(paths.adminToken) };
  let answer: { status: number; body: unknown };
  try {
    answer = await callServer(server, "GET", "/v1/update");
  } catch {
    return undefined;
  }
  if (answer.status === 404) throw new CliError(`the atrium running at ${server.url()} cannot update itself; stop it and run \`atrium update\` again`);
  if (answer.status !== 200) throw new CliError(`the atrium running at ${server.url()} answered: ${errorOf(answer.body, answer.status)}`);
  return server;
}

function upToDateLine(current: { version: string; buildNumber: number }, channel: ReleaseChannel): string {
  return `Atrium ${describeRelease(current)} is up to date on the ${channel} channel\n`;
}

function availableLine(latest: { version: string; buildNumber: number }, current: { version: string; buildNumber: number }, channel: ReleaseChannel): string {
  const command = channel === "alpha" ? "atrium update --alpha" : "atrium update";
  return `Atrium ${describeRelease(latest)} is available on the ${channel} channel (installed: ${describeRelease(current)}); run \`${command}\` to install it\n`;
}

async function updateThroughServer(server: RunningServer, request: UpdateRequest): Promise<void> {
  const checked = await callServer(server, "POST", "/v1/update/check", { channel: request.channel }, CHECK_TIMEOUT_MS);
  if (checked.status !== 200) throw new CliError(errorOf(checked.body, checked.status));
  const status = checked.body as UpdateStatus;
  const current = { version: status.currentVersion, buildNumber: status.currentBuildNumber };
  if (!status.updateAvailable) {
    if (status.latestVersion === null) throw new CliError(status.detail ?? "the update check found no release");
    process.stdout.write(upToDateLine(current, request.channel));
    if (status.detail) process.stdout.write(`(${status.detail})\n`);
    return;
  }
  const latest = { version: status.latestVersion ?? "", buildNumber: status.latestBuildNumber ?? 0 };
  if (request.checkOnly) {
    process.stdout.write(availableLine(latest, current, request.channel));
    return;
  }
  const applied = await callServer(server, "POST", "/v1/update/apply", { channel: request.channel }, CHECK_TIMEOUT_MS);
  if (applied.status !== 202) throw new CliError(errorOf(applied.body, applied.status));
  const target = (applied.body as UpdateStatus).lastApply;
  if (!target) throw new CliError("the server accepted the update but reports no progress");
  process.stdout.write(
    `updating the running server from ${describeRelease(current)} to ${describeRelease({ version: target.targetVersion, buildNumber: target.targetBuildNumber })}\n`,
  );
  await followApply(server, { version: target.targetVersion, buildNumber: target.targetBuildNumber });
}

/** Polls the server (through its restart) until the apply is done or has failed. */
async function followApply(server: RunningServer, target: { version: string; buildNumber: number }): Promise<void> {
  const display = new ProgressDisplay(process.stdout.isTTY === true);
  let deadline = Date.now() + APPLY_WAIT_MS;
  let restarting = false;
  try {
    while (Date.now() < deadline) {
      let status: UpdateStatus | undefined;
      try {
        const answer = await callServer(server, "GET", "/v1/update");
        if (answer.status === 200) status = answer.body as UpdateStatus;
      } catch {
        // Down while it restarts: keep asking.
      }
      const apply = status?.lastApply;
      if (status && apply && apply.targetVersion === target.version && apply.targetBuildNumber === target.buildNumber) {
        if (apply.state === "failed") {
          display.finish();
          throw new CliError(`the update failed: ${apply.message}`);
        }
        if (apply.state === "done" && status.currentVersion === target.version && status.currentBuildNumber === target.buildNumber) {
          display.show("done", 1, apply.message);
          display.finish();
          process.stdout.write(`Atrium ${describeRelease(target)} is running\n`);
          return;
        }
        display.show(apply.state, apply.progress, apply.message);
        if (apply.state === "restarting" && !restarting) {
          restarting = true;
          deadline = Math.min(deadline, Date.now() + RESTART_WAIT_MS);
        }
      }
      await Bun.sleep(POLL_MS);
    }
  } finally {
    display.finish();
  }
  throw new CliError(`the server did not report the update as finished in time; see \`atrium status\` and \`atrium logs\``);
}

/** No server running: check, then download, verify and swap this executable in place. */
async function updateDirectly(paths: DataPaths, config: ConfigFile, request: UpdateRequest): Promise<void> {
  const settings = updateSettingsFromConfig(config);
  const publicKey = embeddedUpdatePublicKey();
  const checker = new UpdateChecker({ baseUrl: settings.baseUrl, publicKey, installed: buildInfo, platformKey: installedPlatformKey() });
  const result: CheckResult = await checker.check(request.channel);
  if (!result.target) {
    if (!result.latest) throw new CliError(result.detail ?? "the update check found no release");
    process.stdout.write(upToDateLine(buildInfo, request.channel));
    if (result.detail) process.stdout.write(`(${result.detail})\n`);
    return;
  }
  if (request.checkOnly) {
    process.stdout.write(availableLine(result.target.release, buildInfo, request.channel));
    return;
  }
  const capability = selfUpdateCapability(buildInfo.compiled, publicKey, process.execPath);
  if (typeof capability === "string") throw new CliError(`cannot update: ${capability}`);
  const { release } = result.target;
  const display = new ProgressDisplay(process.stdout.isTTY === true);
  let progress = 0;
  let staged: string;
  try {
    staged = await stageUpdate(result.target, {
      executable: capability.executable,
      publicKey: capability.publicKey,
      progress: {
        state: (state, message) => display.show(state, progress, message),
        downloaded: (fraction) => {
          progress = fraction;
          display.show("downloading", progress, `${describeRelease(release)}`);
        },
      },
    });
  } catch (error) {
    display.finish();
    throw new CliError(`the update failed: ${(error as Error).message}`);
  }
  const previous = swapInExecutable(capability.executable, staged);
  display.show("done", 1, `installed ${describeRelease(release)}`);
  display.finish();
  new UpdateStateFiles(paths.root).writeLastApply({
    progress: 1,
    state: "done",
    message: `updated from ${describeRelease(buildInfo)} to ${describeRelease(release)} by \`atrium update\` (no server was running)`,
    targetVersion: release.version,
    targetBuildNumber: release.buildNumber,
    at: new Date().toISOString(),
  });
  process.stdout.write(
    `Updated ${capability.executable} from ${describeRelease(buildInfo)} to ${describeRelease(release)}; the previous executable is kept as ${previous}\n`,
  );
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ATRIUM_WORKERS } from "../../release/compile.ts";
import { compiledBuild } from "../helpers/compiled-build.ts";
import { releasedBuild, testReleaseSigner } from "../helpers/released-build.ts";
import { UpdateStatus, type LastApply } from "../../src/schemas/update.ts";
import { Health } from "../../src/schemas/system.ts";
import { latestSchemaVersion } from "../../src/store/migrations.ts";
import { runAtrium } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { sha256Of, startReleaseHost, testSigner, writeRelease } from "./release-fixtures.ts";
import { versionScript } from "../release/release-fixture.ts";
import { gateFile } from "../fixtures/scripted-agent/agent-app.ts";

// The whole update with real compiled builds: an old server (1.0.0, build 1) runs from a folder of
// its own, a loopback host publishes signed releases, and each test points the host at one of them.
// The builds come from the shared compile cache (test/helpers/compiled-build.ts): the old one is the
// build the other compiled-Atrium tests run, so a run compiles it once.

const work = makeTempDir("atrium-self-update-");
const signer = testReleaseSigner;
const otherSigner = testSigner();
const host = startReleaseHost();
let oldBinary = "";
let newBinary = "";
const release = (name: string) => join(work.path, "releases", name);
const installDir = join(work.path, "install");
const executable = join(installDir, "atrium");
const home = join(work.path, "home");
const serverLog = join(work.path, "server.log");
const agentScript = join(work.path, "agent-script.json");
const agentState = join(work.path, "agent-state");
const AGENT = join(import.meta.dir, "..", "fixtures", "scripted-agent", "scripted-agent");
const { INVOCATION_ID: _systemdInvocation, ...inheritedEnv } = process.env;
// Re-executing is what happens without a service manager, even when the tests run under one.
const serverEnv = {
  ...inheritedEnv,
  ATRIUM_HOME: home,
  ATRIUM_SUPERVISOR: "none",
  SCRIPTED_AGENT_SCRIPT: agentScript,
  SCRIPTED_AGENT_STATE: agentState,
  SCRIPTED_AGENT_BUN: process.execPath,
};

let port = 0;
let base = "";
let token = "";
let oldSha = "";
let projectId = "";
let sessionId = "";

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const chosen = probe.port ?? 0;
  probe.stop(true);
  return chosen;
}

/**
 * `atrium serve` from the install folder, as install.sh starts it where there is no service manager:
 * output appended to a log (later builds inherit it), its pid in `<data dir>/atrium.pid`.
 */
function startServer(): void {
  const log = openSync(serverLog, "a");
  const child = Bun.spawn([executable, "serve", "--port", String(port)], { env: serverEnv, stdin: "ignore", stdout: log, stderr: log });
  child.unref();
  closeSync(log);
  writeFileSync(join(home, "atrium.pid"), `${child.pid}\n`);
}

/** Health of the server at `url` (the re-exec install's by default), or undefined while it does not answer. */
async function health(url = base): Promise<Health | undefined> {
  try {
    const response = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? ((await response.json()) as Health) : undefined;
  } catch {
    return undefined;
  }
}

const serving = async (version: string, timeoutMs = 30_000) => (await until(health, (h) => h?.release.version === version, timeoutMs))!;

/** A JSON request with a bearer token to the server at `url`. */
async function requestJson<T>(url: string, bearer: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** A request to the re-exec install's server. */
const api = <T>(method: string, path: string, body?: unknown) => requestJson<T>(base, token, method, path, body);

const updateStatus = async () => (await api<UpdateStatus>("GET", "/v1/update")).body;

/** Polls GET /v1/update (across a restart, when the server is briefly down) until lastApply is finished. */
async function finishedApply(timeoutMs = 60_000): Promise<LastApply> {
  const read = () => updateStatus().catch(() => undefined);
  const status = await until(read, (s) => s?.lastApply?.state === "done" || s?.lastApply?.state === "failed", timeoutMs);
  return status!.lastApply!;
}

/** Nothing but the executable (and no leftover download) in the install folder. */
const installFolder = () => readdirSync(installDir).sort();

beforeAll(async () => {
  const started = performance.now();
  [oldBinary, newBinary] = await Promise.all([
    releasedBuild(),
    // The next release brings a schema change, as releases do: the update migrates the old build's data.
    compiledBuild({
      version: "1.1.0",
      buildNumber: 2,
      channel: "stable",
      updatePublicKey: signer.publicKeyPem,
      entrypoints: [join(import.meta.dir, "fixtures", "next-release-atrium.ts"), ...ATRIUM_WORKERS],
    }),
  ]);
  console.log(`two builds ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const newRelease = { executable: newBinary, version: "1.1.0", buildNumber: 2 };
  await writeRelease(release("good"), { ...newRelease, signer, notes: "the good one" });
  await writeRelease(release("other-key"), { ...newRelease, signer: otherSigner });
  // Releases that fail before they serve need no 120 MB build: a small executable stands in (as the
  // install.sh tests do), whose --version answers like atrium's.
  const failing = join(work.path, "failing");
  mkdirSync(failing);
  const script = (name: string, text: string) => {
    writeFileSync(join(failing, name), text, { mode: 0o755 });
    return join(failing, name);
  };
  const published = { ...newRelease, executable: script("1.1.0", versionScript("1.1.0")) };
  await writeRelease(release("wrong-sha"), {
    ...published,
    signer,
    alter: (manifest) => {
      for (const file of Object.values(manifest.files)) file.sha256 = sha256Of(oldBinary);
    },
  });
  // Published bytes changed after the release was written: one byte flipped.
  const corrupted = await writeRelease(release("corrupted"), { ...published, signer, copy: true });
  writeFileSync(corrupted, readFileSync(corrupted, "utf8").replace("1.1.0", "1.1.1"));
  // A build published as 1.1.0 whose --version says 1.0.0.
  await writeRelease(release("self-check"), { ...published, executable: script("1.0.0", versionScript("1.0.0")), signer });
  // A build that passes the self-check, then exits instead of serving.
  const exits = '#!/bin/sh\n[ "$1" = --version ] && echo 1.1.0 && exit 0\necho "unhealthy atrium: exiting instead of serving" >&2\nexit 3\n';
  await writeRelease(release("unhealthy"), { ...published, executable: script("unhealthy", exits), signer });

  mkdirSync(installDir);
  mkdirSync(home);
  copyFileSync(oldBinary, executable);
  oldSha = sha256Of(executable);
  writeFileSync(agentScript, JSON.stringify({ prompts: {} }));
  host.root = release("good");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      updateBaseUrl: host.url,
      updateCheckIntervalHours: 6,
      harnessUpdateCheck: false,
      harnesses: [{ id: "scripted", name: "Scripted agent", executable: AGENT }],
    }),
  );
  port = freePort();
  base = `http://127.0.0.1:${port}`;
  startServer();
  await serving("1.0.0");
  token = readFileSync(join(home, "token"), "utf8").trim();
}, 240_000);

afterAll(async () => {
  // The server running now was started by the last update or rollback, not by this file directly.
  // The lock's first line is the holder's pid (its second, the process's start time).
  const pid = Number(readFileSync(join(home, "server.lock"), "utf8").split("\n")[0]);
  if (pid > 0) {
    try {
      process.kill(pid, "SIGTERM");
      await until(
        async () => existsSync(join(home, "server.lock")),
        (present) => !present,
        15_000,
      );
    } catch {
      // already gone
    }
  }
  host.stop();
  if (process.env.ATRIUM_TEST_KEEP_UPDATE_DIR) console.log(`kept ${work.path}`);
  else work.remove();
});

describe("self-update of a compiled server", () => {
  test("the start-up check reports the newer stable release", async () => {
    const status = await until(updateStatus, (s) => s.checkedAt !== null);
    assertMatchesSchema(UpdateStatus, status);
    expect(status).toMatchObject({
      currentVersion: "1.0.0",
      currentBuildNumber: 1,
      channel: "stable",
      latestVersion: "1.1.0",
      latestBuildNumber: 2,
      updateAvailable: true,
      canSelfUpdate: true,
      notes: "the good one",
      lastApply: null,
    });
    const project = await api<{ id: string }>("POST", "/v1/projects", { isScratch: true });
    expect(project.status).toBe(201);
    projectId = project.body.id;
  });

  test("a prompt in flight: 409 naming the session, and the prompt finishes normally", async () => {
    // Were the refusal to fail, this release could not be installed anyway (wrong key).
    host.root = release("other-key");
    writeFileSync(agentScript, JSON.stringify({ prompts: { slow: [{ chunk: "started" }, { gate: "finish" }, { chunk: " and finished" }] } }));
    await until(
      () => api<{ readiness: { state: string } }>("GET", "/v1/harnesses/scripted"),
      (h) => h.body.readiness.state === "ready",
    );
    const session = await api<{ id: string }>("POST", "/v1/sessions", { projectId, harnessId: "scripted" });
    expect(session.status).toBe(201);
    sessionId = session.body.id;
    await api("POST", `/v1/sessions/${sessionId}/prompts`, { text: "slow" });
    type Detail = { conversation: Array<{ role: string; text: string; isGenerating: boolean; stopReason: string | null }> };
    const reply = (detail: Detail) => detail.conversation.filter((item) => item.role === "assistant").at(-1);
    const detail = async () => (await api<Detail>("GET", `/v1/sessions/${sessionId}`)).body;
    await until(detail, (d) => reply(d)?.text === "started");

    const refused = await api<{ error: string }>("POST", "/v1/update/apply");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(sessionId);
    expect(refused.body.error).toContain("in flight");

    mkdirSync(dirname(gateFile(agentState, "finish")), { recursive: true });
    writeFileSync(gateFile(agentState, "finish"), "");
    const finished = await until(detail, (d) => reply(d)?.isGenerating === false, 15_000);
    expect(reply(finished)).toMatchObject({ text: "started and finished", stopReason: "end_turn" });
    expect(sha256Of(executable)).toBe(oldSha);
  });

  test("a manifest signed with another key: 409 with the reason, nothing downloaded", async () => {
    const refused = await api<{ error: string }>("POST", "/v1/update/apply");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(`signed by key ${otherSigner.keyId}, but this build trusts key ${signer.keyId}`);
    const status = await updateStatus();
    expect(status.updateAvailable).toBe(false);
    expect(status.detail).toContain("signed by key");
    expect(sha256Of(executable)).toBe(oldSha);
    expect(installFolder()).toEqual(["atrium"]);
  });

  for (const [name, expected] of [
    ["corrupted", "sha256 mismatch"],
    ["wrong-sha", "sha256 mismatch"],
    ["self-check", 'the new executable says it is "1.0.0", the manifest says 1.1.0'],
  ] as const) {
    test(`${name}: the apply fails, the installed binary is untouched and the server keeps running`, async () => {
      host.root = release(name);
      const before = await serving("1.0.0");
      const accepted = await api<UpdateStatus>("POST", "/v1/update/apply", {});
      expect(accepted.status).toBe(202);
      assertMatchesSchema(UpdateStatus, accepted.body);
      expect(accepted.body.lastApply).toMatchObject({ state: "downloading", targetVersion: "1.1.0", targetBuildNumber: 2 });
      const failed = await finishedApply();
      expect(failed.state).toBe("failed");
      expect(failed.message).toContain(expected);
      expect(failed.message).toContain("the installed executable is unchanged");
      expect(sha256Of(executable)).toBe(oldSha);
      expect(installFolder()).toEqual(["atrium"]);
      expect((await serving("1.0.0")).process.pid).toBe(before.process.pid);
    });
  }

  test("a new build that exits instead of serving is rolled back and the old one restarted (through `atrium update`)", async () => {
    host.root = release("unhealthy");
    const before = await serving("1.0.0");
    const result = await runAtrium([executable], ["update"], home);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("updating the running server from 1.0.0 (build 1) to 1.1.0 (build 2)");
    expect(result.stderr).toContain("the update failed: the new server 1.1.0 (build 2) exited with 3 before it became healthy; restored 1.0.0 (build 1)");
    const after = await serving("1.0.0");
    expect(after.process.pid).not.toBe(before.process.pid);
    const status = await updateStatus();
    expect(status.lastApply).toMatchObject({ state: "failed", targetVersion: "1.1.0" });
    expect(sha256Of(executable)).toBe(oldSha);
    expect(installFolder()).toEqual(["atrium"]);
  }, 60_000);

  test("updates end to end: the new version serves, data intact, the old binary kept as .previous", async () => {
    host.root = release("good");
    const accepted = await api<UpdateStatus>("POST", "/v1/update/apply", { channel: "stable" });
    expect(accepted.status).toBe(202);
    // The new build answers health while it migrates the old build's database (the watchdog waits).
    const migrating = (await until(health, (h) => h?.release.version === "1.1.0" && h.migration.state === "running", 30_000))!;
    assertMatchesSchema(Health, migrating);
    expect(migrating.status).toBe("degraded");
    expect(migrating.migration).toMatchObject({ schemaVersion: latestSchemaVersion, targetVersion: latestSchemaVersion + 1 });
    const done = await finishedApply();
    expect(done).toMatchObject({ state: "done", progress: 1, targetVersion: "1.1.0", targetBuildNumber: 2 });
    expect(done.message).toBe("updated from 1.0.0 (build 1) to 1.1.0 (build 2)");
    const healthNow = await serving("1.1.0");
    expect(healthNow.release).toEqual({ version: "1.1.0", buildNumber: 2, channel: "stable" });
    expect(healthNow.status).toBe("ok");
    expect(healthNow.migration).toMatchObject({ state: "idle", schemaVersion: latestSchemaVersion + 1 });
    expect(healthNow.migration.detail).toContain(join(home, "backups", `atrium-schema${latestSchemaVersion}-`));
    // install.sh finds (and stops) its background server by this file.
    expect(Number(readFileSync(join(home, "atrium.pid"), "utf8"))).toBe(healthNow.process.pid);
    const status = await updateStatus();
    assertMatchesSchema(UpdateStatus, status);
    expect(status).toMatchObject({ currentVersion: "1.1.0", currentBuildNumber: 2, updateAvailable: false });

    const projects = await api<Array<{ id: string }>>("GET", "/v1/projects");
    expect(projects.body.map((project) => project.id)).toContain(projectId);
    const session = await api<{ conversation: Array<{ text: string }> }>("GET", `/v1/sessions/${sessionId}`);
    expect(session.body.conversation.map((item) => item.text)).toContain("started and finished");

    expect(sha256Of(executable)).toBe(sha256Of(newBinary));
    expect(sha256Of(`${executable}.previous`)).toBe(oldSha);
    expect(installFolder()).toEqual(["atrium", "atrium.previous"]);
    expect(existsSync(join(home, "update-pending.json"))).toBe(false);
    expect((await runAtrium([executable], ["--version"], home)).stdout.trim()).toBe("1.1.0");
  }, 60_000);

  test("`atrium update` then says it is up to date", async () => {
    const result = await runAtrium([executable], ["update"], home);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("Atrium 1.1.0 (build 2) is up to date on the stable channel\n");
    expect(result.code).toBe(0);
  });

  test("`atrium update` with no server running replaces its own executable", async () => {
    const dir = join(work.path, "direct");
    const directHome = join(dir, "home");
    mkdirSync(directHome, { recursive: true });
    copyFileSync(oldBinary, join(dir, "atrium"));
    writeFileSync(join(directHome, "config.json"), JSON.stringify({ updateBaseUrl: host.url }));
    const check = await runAtrium([join(dir, "atrium")], ["update", "--check"], directHome);
    expect(check.stdout).toContain("Atrium 1.1.0 (build 2) is available on the stable channel (installed: 1.0.0 (build 1))");
    expect(sha256Of(join(dir, "atrium"))).toBe(oldSha);
    const result = await runAtrium([join(dir, "atrium")], ["update"], directHome);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("downloading: ");
    expect(result.stdout).toContain(`Updated ${join(dir, "atrium")} from 1.0.0 (build 1) to 1.1.0 (build 2)`);
    expect((await runAtrium([join(dir, "atrium")], ["--version"], directHome)).stdout.trim()).toBe("1.1.0");
    expect(sha256Of(join(dir, "atrium.previous"))).toBe(oldSha);
  });
});

/**
 * The old build installed in a folder of its own under a service manager: the test plays systemd,
 * starting the executable again when it exits (with install.sh's ATRIUM_SUPERVISOR).
 */
function supervisedInstall(name: string) {
  const dir = join(work.path, name);
  const supervisedHome = join(dir, "home");
  const supervisedExecutable = join(dir, "atrium");
  mkdirSync(supervisedHome, { recursive: true });
  copyFileSync(oldBinary, supervisedExecutable);
  const supervisedPort = freePort();
  writeFileSync(join(supervisedHome, "config.json"), JSON.stringify({ updateBaseUrl: host.url, updateCheckIntervalHours: 0, harnessUpdateCheck: false }));
  const env = { ...inheritedEnv, ATRIUM_HOME: supervisedHome, ATRIUM_SUPERVISOR: "systemd" };
  const url = `http://127.0.0.1:${supervisedPort}`;
  const token = () => readFileSync(join(supervisedHome, "token"), "utf8").trim();
  return {
    home: supervisedHome,
    executable: supervisedExecutable,
    start: () => Bun.spawn([supervisedExecutable, "serve", "--port", String(supervisedPort)], { env, stdin: "ignore", stdout: "ignore", stderr: "ignore" }),
    /** Waits until the given version answers health with everything served (any migration done). */
    serving: (version: string) =>
      until(
        () => health(url),
        (answer) => answer?.release.version === version && answer.status === "ok",
        30_000,
      ),
    api: <T>(method: string, path: string, body?: unknown) => requestJson<T>(url, token(), method, path, body),
    /** Applies the update from the release host; the old server exits with 75 for the manager to restart it. */
    async applyAndExit(running: Bun.Subprocess) {
      expect((await this.api("POST", "/v1/update/apply")).status).toBe(202);
      expect(await running.exited).toBe(75);
      const pending = JSON.parse(readFileSync(join(supervisedHome, "update-pending.json"), "utf8")) as { restartMode: string };
      expect(pending.restartMode).toBe("systemd");
    },
  };
}

describe("self-update under a service manager", () => {
  test("the server exits with 75, and the executable the manager starts again is the new build", async () => {
    host.root = release("good");
    const install = supervisedInstall("supervised");
    const first = install.start();
    await install.serving("1.0.0");
    await install.applyAndExit(first);

    const second = install.start();
    try {
      // The new build migrates first; until it is done, only health answers.
      await install.serving("1.1.0");
      const status = await install.api<UpdateStatus>("GET", "/v1/update");
      expect(status.body.lastApply).toMatchObject({ state: "done", targetVersion: "1.1.0" });
      expect(existsSync(join(install.home, "update-pending.json"))).toBe(false);
      expect(sha256Of(`${install.executable}.previous`)).toBe(oldSha);
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
  }, 60_000);

  test("a new build whose migration fails puts the previous one back and fails its start; the previous build serves the unchanged data", async () => {
    host.root = release("good");
    const install = supervisedInstall("supervised-broken-migration");
    writeFileSync(join(install.home, "next-release-breaks"), "");
    const first = install.start();
    await install.serving("1.0.0");
    const note = { entries: [{ key: "k", value: "before the update", timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }] };
    expect((await install.api("PUT", "/v1/sync/notes", note)).status).toBe(200);
    await install.applyAndExit(first);

    const second = install.start();
    expect(await second.exited).toBe(1);
    expect(sha256Of(install.executable)).toBe(oldSha);
    expect(existsSync(join(install.home, "update-pending.json"))).toBe(false);

    const third = install.start();
    try {
      const health = (await install.serving("1.0.0"))!;
      expect(health.migration).toMatchObject({ state: "idle", schemaVersion: latestSchemaVersion });
      const status = await install.api<UpdateStatus>("GET", "/v1/update");
      expect(status.body.lastApply).toMatchObject({ state: "failed", targetVersion: "1.1.0" });
      expect(status.body.lastApply!.message).toContain("the new server failed to start: no such table: nowhere; restored 1.0.0 (build 1)");
      expect(JSON.stringify((await install.api("GET", "/v1/sync/notes")).body)).toContain("before the update");
    } finally {
      third.kill("SIGTERM");
      await third.exited;
    }
  }, 60_000);
});

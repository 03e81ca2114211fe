import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { startSessionServer, lastReply, type SessionTestServer } from "../sessions/session-helpers.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { UpdateStatus } from "../../src/schemas/update.ts";
import type { BuildInfo } from "../../src/system/build-info.ts";
import { sha256Of, startReleaseHost, testSigner, writeRelease } from "./release-fixtures.ts";

// In-process servers cannot restart into another build, so these stop before the swap: the routes,
// the refusals and the failures that leave the executable alone. self-update.release.ts runs the
// compiled binaries through the whole update.

const signer = testSigner();
const dir = makeTempDir("atrium-update-routes-");
const host = startReleaseHost();
/** A stand-in executable: the self-check runs `--version` on whatever is downloaded. */
const script = (version: string) => `#!/bin/sh\necho ${version}\n`;
const installedExecutable = join(dir.path, "install", "atrium");
const oldRelease: BuildInfo = { version: "1.0.0", buildNumber: 10, channel: "stable", commit: "", compiled: true };

let fromSource: TestServer;

beforeAll(async () => {
  const newExecutable = join(dir.path, "new-atrium");
  writeFileSync(newExecutable, script("1.1.0"), { mode: 0o755 });
  await writeRelease(join(dir.path, "good"), { executable: newExecutable, version: "1.1.0", buildNumber: 11, signer });
  await writeRelease(join(dir.path, "wrong-sha"), {
    executable: newExecutable,
    version: "1.1.0",
    buildNumber: 11,
    signer,
    alter: (manifest) => {
      for (const file of Object.values(manifest.files)) file.sha256 = "0".repeat(64);
    },
  });
  await writeRelease(join(dir.path, "wrong-version"), { executable: newExecutable, version: "1.2.0", buildNumber: 12, signer });
  Bun.spawnSync(["mkdir", "-p", join(dir.path, "install")]);
  writeFileSync(installedExecutable, script("1.0.0"), { mode: 0o755 });
  host.root = join(dir.path, "good");
  fromSource = await startTestServer({ config: { updateBaseUrl: host.url }, tuning: { modules: { updates: { publicKey: signer.publicKeyPem } } } });
});

afterAll(async () => {
  await fromSource.stop();
  host.stop();
  dir.remove();
});

describe("GET /v1/update and POST /v1/update/check", () => {
  test("report the running build, nothing checked yet, and why a build from source cannot update", async () => {
    const { status, body } = await fromSource.json<UpdateStatus>("GET", "/v1/update");
    expect(status).toBe(200);
    assertMatchesSchema(UpdateStatus, body);
    expect(body).toMatchObject({
      channel: "stable",
      checkedAt: null,
      latestVersion: null,
      updateAvailable: false,
      canSelfUpdate: false,
      migrationState: "idle",
      lastApply: null,
    });
    expect(body.detail).toContain("runs from source");
  });

  test("a check reads the manifest and the status keeps its result", async () => {
    const checked = await fromSource.json<UpdateStatus>("POST", "/v1/update/check", {});
    expect(checked.status).toBe(200);
    assertMatchesSchema(UpdateStatus, checked.body);
    expect(checked.body).toMatchObject({ latestVersion: "1.1.0", latestBuildNumber: 11, latestChannel: "stable", notes: "release 1.1.0" });
    expect(checked.body.checkedAt).not.toBeNull();
    expect((await fromSource.json<UpdateStatus>("GET", "/v1/update")).body.checkedAt).toBe(checked.body.checkedAt);
    const badChannel = await fromSource.json<{ error: string }>("POST", "/v1/update/check", { channel: "beta" });
    expect(badChannel.status).toBe(400);
    expect(badChannel.body.error).toContain('"channel"');
  });

  test("applying on a build from source is refused with 409 and the reason", async () => {
    const { status, body } = await fromSource.json<{ error: string }>("POST", "/v1/update/apply");
    expect(status).toBe(409);
    assertMatchesSchema(ErrorBody, body);
    expect(body.error).toContain("runs from source");
  });
});

describe("POST /v1/update/apply on a release build", () => {
  let t: SessionTestServer;
  beforeAll(async () => {
    t = await startSessionServer({
      agents: "in-process",
      config: { updateBaseUrl: host.url },
      tuning: { modules: { updates: { publicKey: signer.publicKeyPem, build: oldRelease, executable: installedExecutable, drainTimeoutMs: 1_000 } } },
    });
  });
  afterAll(() => t.cleanup());

  const lastApply = async () => (await t.json<UpdateStatus>("GET", "/v1/update")).body.lastApply;

  test("is refused with 409 naming the session while a prompt is in flight, and the prompt finishes", async () => {
    host.root = join(dir.path, "good");
    t.script({ prompts: { slow: [{ chunk: "started" }, { gate: "finish" }, { chunk: " and finished" }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "slow" });
    await t.until(session.id, (detail) => lastReply(detail)?.text === "started");
    const refused = await t.json<{ error: string }>("POST", "/v1/update/apply");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(session.id);
    expect(refused.body.error).toContain("in flight");
    t.agents.openGate("finish");
    const done = await t.until(session.id, (detail) => lastReply(detail)?.isGenerating === false);
    expect(lastReply(done)?.text).toBe("started and finished");
    expect(lastReply(done)?.stopReason).toBe("end_turn");
    expect(await lastApply()).toBeNull();
  });

  test("a sha256 that does not match fails the apply and leaves the executable and its folder as they were", async () => {
    host.root = join(dir.path, "wrong-sha");
    const before = sha256Of(installedExecutable);
    const accepted = await t.json<UpdateStatus>("POST", "/v1/update/apply", { channel: "stable" });
    expect(accepted.status).toBe(202);
    assertMatchesSchema(UpdateStatus, accepted.body);
    expect(accepted.body.lastApply).toMatchObject({ state: "downloading", targetVersion: "1.1.0", targetBuildNumber: 11 });
    const failed = await until(lastApply, (apply) => apply?.state === "failed");
    expect(failed?.message).toContain("sha256 mismatch");
    expect(sha256Of(installedExecutable)).toBe(before);
    expect(readdirSync(join(dir.path, "install"))).toEqual(["atrium"]);
  });

  test("a new executable that names another version fails the self-check, recorded in update.json for after a restart", async () => {
    host.root = join(dir.path, "wrong-version");
    expect((await t.json("POST", "/v1/update/apply")).status).toBe(202);
    const failed = await until(lastApply, (apply) => apply?.state === "failed");
    expect(failed?.message).toContain('says it is "1.1.0", the manifest says 1.2.0');
    expect(existsSync(`${installedExecutable}.previous`)).toBe(false);
    const persisted = JSON.parse(await Bun.file(join(t.dataDir, "update.json")).text()) as { lastApply: unknown };
    expect(persisted.lastApply).toEqual(failed);
  });

  test("an up-to-date server answers 409 saying so", async () => {
    host.root = join(dir.path, "good");
    const upToDate = await startTestServer({
      config: { updateBaseUrl: host.url },
      tuning: {
        modules: { updates: { publicKey: signer.publicKeyPem, build: { ...oldRelease, version: "1.1.0", buildNumber: 11 }, executable: installedExecutable } },
      },
    });
    try {
      const { status, body } = await upToDate.json<{ error: string }>("POST", "/v1/update/apply");
      expect(status).toBe(409);
      expect(body.error).toBe("Atrium 1.1.0 (build 11) is up to date on the stable channel");
    } finally {
      await upToDate.stop();
    }
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/poll.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Harness, Terminal } from "../../src/schemas/harnesses.ts";

type HarnessBody = Static<typeof Harness>;

let t: TestServer;
let dirs: ReturnType<typeof makeTempDir>;

async function start(extraEnv: Record<string, string> = {}): Promise<void> {
  dirs = makeTempDir("atrium-install-");
  const bin = join(dirs.path, "bin");
  Bun.spawnSync(["mkdir", "-p", bin]);
  const PATH = [bin, join(import.meta.dir, "..", "fixtures", "fake-npm"), "/usr/bin", "/bin"].join(":");
  t = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH, HOME: dirs.path, FAKE_NPM_BIN: bin, ...extraEnv }, probeTimeoutMs: 2000 } } } });
}

afterEach(async () => {
  await t.stop();
  dirs.remove();
});

/** Polls the harness until its operation has ended. */
function settled(id: string): Promise<HarnessBody> {
  return until(
    async () => (await t.json<HarnessBody>("GET", `/v1/harnesses/${id}`)).body,
    (harness) => harness.lifecycle.phase !== "installing" && harness.lifecycle.phase !== "updating",
    15_000,
  );
}

describe("install and update", () => {
  beforeEach(() => start());

  test("install runs npm in the background, keeps its output, and detects the harness afterwards", async () => {
    await t.ready();
    expect((await t.json<HarnessBody>("GET", "/v1/harnesses/gemini")).body.readiness.state).toBe("missing");
    const started = await t.json<HarnessBody>("POST", "/v1/harnesses/gemini/install", {});
    expect(started.status).toBe(202);
    assertMatchesSchema(Harness, started.body);
    expect(started.body.lifecycle).toMatchObject({ phase: "installing", methodId: "npm", error: null });
    expect(started.body.lifecycle.terminalId).toStartWith("term_");
    const done = await settled("gemini");
    expect(done.lifecycle).toMatchObject({ phase: "idle", error: null, terminalId: started.body.lifecycle.terminalId });
    expect(done.readiness).toMatchObject({ state: "ready", version: "0.9.0" });
    const terminal = await t.json<Static<typeof Terminal>>("GET", `/v1/terminals/${done.lifecycle.terminalId}`);
    assertMatchesSchema(Terminal, terminal.body);
    expect(terminal.body).toMatchObject({ subjectId: "gemini", command: "npm install -g @google/gemini-cli", exitCode: 0 });
    expect(terminal.body.output).toContain("added 1 package");
  });

  test("a harness with an ACP adapter installs both in one npm run, and is ready for sessions only then", async () => {
    await t.ready();
    const before = (await t.json<HarnessBody>("GET", "/v1/harnesses/claude")).body;
    expect(before.readiness.state).toBe("missing");
    expect(before.installMethods.map((method) => method.command)).toEqual(["npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp"]);
    expect((await t.json<HarnessBody>("POST", "/v1/harnesses/claude/install", {})).status).toBe(202);
    const done = await settled("claude");
    assertMatchesSchema(Harness, done);
    expect(done.readiness).toMatchObject({ state: "ready", version: "2.1.197", detail: "ACP adapter claude-agent-acp 0.49.0" });
    expect(done.enabled).toBe(true);
    const terminal = await t.json<Static<typeof Terminal>>("GET", `/v1/terminals/${done.lifecycle.terminalId}`);
    expect(terminal.body.command).toBe("npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp");
    // An update brings both to their latest versions.
    expect((await t.json<HarnessBody>("POST", "/v1/harnesses/claude/update", {})).status).toBe(202);
    const updated = await settled("claude");
    const updateTerminal = await t.json<Static<typeof Terminal>>("GET", `/v1/terminals/${updated.lifecycle.terminalId}`);
    expect(updateTerminal.body.command).toBe("npm install -g @anthropic-ai/claude-code@latest @agentclientprotocol/claude-agent-acp@latest");
  });

  test("update installs the latest version; no body at all is accepted", async () => {
    await t.ready();
    await t.json("POST", "/v1/harnesses/gemini/install");
    await settled("gemini");
    const response = await t.api("/v1/harnesses/gemini/update", { method: "POST" });
    expect(response.status).toBe(202);
    const done = await settled("gemini");
    expect(done.readiness.version).toBe("0.10.0");
    expect(done.updateInfo.installedVersion).toBe("0.10.0");
  });

  test("refusals: unknown method 400, tool missing 409, update before install 409, unknown harness 404", async () => {
    await t.ready();
    const unknown = await t.json<{ error: string }>("POST", "/v1/harnesses/gemini/install", { methodId: "pip" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('no install method "pip"');
    const brew = await t.json<{ error: string }>("POST", "/v1/harnesses/gemini/install", { methodId: "brew" });
    expect(brew.status).toBe(409);
    expect(brew.body.error).toContain("brew is not on the service's PATH");
    const early = await t.json<{ error: string }>("POST", "/v1/harnesses/gemini/update", {});
    expect(early.status).toBe(409);
    expect(early.body.error).toContain("not installed");
    expect((await t.json("POST", "/v1/harnesses/nope/install", {})).status).toBe(404);
    expect((await t.json<HarnessBody>("GET", "/v1/harnesses/gemini")).body.lifecycle.phase).toBe("idle");
  });
});

describe("operations in progress and failures", () => {
  test("a second operation while one runs is 409; the output streams as terminal.output events", async () => {
    // npm waits until the test lets it go: the second request comes while the first install runs.
    const holdDir = makeTempDir("atrium-npm-hold-");
    const hold = join(holdDir.path, "go");
    try {
      await start({ FAKE_NPM_GATE: hold });
      const cursor = await t.ready();
      const first = await t.json<HarnessBody>("POST", "/v1/harnesses/gemini/install", {});
      const second = await t.json<{ error: string }>("POST", "/v1/harnesses/gemini/install", {});
      expect(second.status).toBe(409);
      expect(second.body.error).toContain("already installing");
      writeFileSync(hold, "");
      await settled("gemini");
      const stream = new SseClient(`${t.url}/v1/events/stream?after=${cursor}&kind=terminal.output`, { authorization: `Bearer ${t.token}` });
      await stream.waitFor((frame) => frame.data.includes("added 1 package"), 3000).finally(() => stream.close());
      const text = stream.frames.map((frame) => frame.data).join("\n");
      expect(text).toContain(`"terminalId":"${first.body.lifecycle.terminalId}"`);
      expect(text).toContain("added 1 package");
    } finally {
      holdDir.remove();
    }
  });

  test("a failing install ends in phase failed with the reason, and the harness stays missing", async () => {
    await start({ FAKE_NPM_FAIL: "1" });
    await t.ready();
    await t.json("POST", "/v1/harnesses/gemini/install", {});
    const done = await settled("gemini");
    expect(done.lifecycle.phase).toBe("failed");
    expect(done.lifecycle.error).toContain("exited with 1");
    expect(done.readiness.state).toBe("missing");
    const terminal = (await t.json<Static<typeof Terminal>>("GET", `/v1/terminals/${done.lifecycle.terminalId}`)).body;
    expect(terminal.output).toContain("404 Not Found");
    // A failed operation does not block the next one.
    expect((await t.json("POST", "/v1/harnesses/gemini/install", {})).status).toBe(202);
    await settled("gemini");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { node, npmInstallGlobal } from "../helpers/npm-install.ts";
import { Harness } from "../../src/schemas/harnesses.ts";
import { Project } from "../../src/schemas/projects.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { QueuedPrompt, Session, SessionConfig, SessionDetail } from "../../src/schemas/sessions.ts";
import { lastReply, type DetailBody, type SessionBody } from "./session-helpers.ts";

// Opt-in (ATRIUM_TEST_CLAUDE_AGENT_ACP=1): the real @agentclientprotocol/claude-agent-acp with the real
// Claude Code, both installed from the npm registry with the real npm, run by a real server. No Anthropic
// login is needed, nor any network beyond the registry: claude-agent-acp answers initialize and
// session/new offline (with its config options), and a prompt then fails for want of a login.

const ENABLED = process.env.ATRIUM_TEST_CLAUDE_AGENT_ACP === "1";
const PACKAGES = ["@anthropic-ai/claude-code", "@agentclientprotocol/claude-agent-acp"];

type HarnessBody = Static<typeof Harness>;
type ConfigBody = Static<typeof SessionConfig>;

let t: TestServer | undefined;
let prefix = "";
let session: SessionBody;
const dirs: Array<ReturnType<typeof makeTempDir>> = [];

/** The processes whose command line names the temp prefix: claude-agent-acp and the claude it runs. */
function agentProcesses(): string[] {
  const listed = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`ps failed: ${listed.stderr}`);
  return listed.stdout.split("\n").filter((line) => line.includes(prefix)).map((line) => line.trim());
}

async function detail(id: string): Promise<DetailBody> {
  const { status, body } = await t!.json<DetailBody>("GET", `/v1/sessions/${id}`);
  expect(status).toBe(200);
  assertMatchesSchema(SessionDetail, body);
  return body;
}

describe.if(ENABLED)("the real claude-agent-acp, offline and logged out", () => {
  beforeAll(async () => {
    expect(node, "node is not on the PATH").toBeTruthy();
    const prefixDir = makeTempDir("atrium-claude-acp-prefix-");
    const homeDir = makeTempDir("atrium-claude-acp-home-");
    dirs.push(prefixDir, homeDir);
    // The real path: the server reports what it finds on the PATH, and /tmp may be a symlink (macOS).
    prefix = realpathSync(prefixDir.path);
    const installMs = await npmInstallGlobal(prefix, PACKAGES, { cwd: homeDir.path, timeoutMs: 240_000 });
    console.info(`claude-agent-acp.test.ts: npm install of ${PACKAGES.join(" and ")} took ${installMs} ms`);

    // node for claude-agent-acp (#!/usr/bin/env node); IS_SANDBOX=1 lets Claude Code run as root
    // (CI containers), where it otherwise refuses the permission flags claude-agent-acp passes it.
    const harnessEnv = { PATH: [join(prefix, "bin"), dirname(node!), "/usr/bin", "/bin"].join(":"), HOME: homeDir.path, IS_SANDBOX: "1" };
    t = await startTestServer({ harnessEnv, probeTimeoutMs: 60_000, agentInitializeTimeoutMs: 60_000 });
    await t.ready();
  }, 300_000);

  afterAll(async () => {
    await t?.stop();
    for (const dir of dirs) dir.remove();
  });

  test("claude is detected; a session is created although no one is logged in", async () => {
    const claude = await until(
      async () => (await t!.json<HarnessBody>("GET", "/v1/harnesses/claude")).body,
      (harness) => harness.readiness.state === "ready" && harness.readiness.version !== null && harness.auth.state !== "checking",
      60_000,
    );
    assertMatchesSchema(Harness, claude);
    expect(claude.readiness.path).toBe(join(prefix, "bin", "claude"));
    expect(claude.enabled).toBe(true);
    // Nobody is logged in here; that does not stop a session from being created (only the turn fails).
    expect(claude.auth.state).toBe("unauthenticated");

    const project = await t!.json<Static<typeof Project>>("POST", "/v1/projects", { isScratch: true });
    expect(project.status).toBe(201);
    assertMatchesSchema(Project, project.body);
    const created = await t!.json<SessionBody>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "claude" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    assertMatchesSchema(Session, created.body);
    expect(created.body).toMatchObject({ harnessId: "claude", harnessAccountId: "claude:default", sidebarState: "idle", agentSessionId: null, configSelections: {} });
    session = created.body;
    // The agent starts only when it is needed.
    expect(agentProcesses()).toEqual([]);
  });

  test("session/new works offline: the agent's config options arrive and one can be set", async () => {
    // Setting an option starts the agent: initialize, session/new (which brings the options), then
    // session/set_config_option.
    const started = performance.now();
    const set = await t!.json<ConfigBody>("POST", `/v1/sessions/${session.id}/config`, { configId: "model", value: "sonnet" });
    const setMs = Math.round(performance.now() - started);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    assertMatchesSchema(SessionConfig, set.body);
    console.info(`claude-agent-acp.test.ts: starting the agent and setting model=sonnet took ${setMs} ms`);
    const byId = new Map(set.body.configOptions.map((option) => [option.id, option]));
    console.info(`claude-agent-acp.test.ts: config options ${set.body.configOptions.map((o) => `${o.id}=${o.currentValue} [${o.options.map((v) => v.value).join(", ")}]`).join("; ")}`);
    expect(set.body.configId).toBe("model");
    expect(byId.get("model")).toMatchObject({ category: "model", currentValue: "sonnet" });
    expect(byId.get("model")!.options.map((option) => option.value)).toContain("default");
    expect(byId.get("mode")).toMatchObject({ category: "mode", currentValue: "default" });
    expect(byId.get("mode")!.options.map((option) => option.value)).toEqual(expect.arrayContaining(["default", "acceptEdits", "plan"]));

    const after = await detail(session.id);
    expect(after.session.agentSessionId).toBeString();
    expect(after.session.configSelections).toMatchObject({ mode: "default", model: "sonnet" });
    expect(after.session.unavailableConfigSelections).toEqual({});
    expect(after.session).toMatchObject({ sidebarState: "idle", status: null });
    expect(after.conversation).toEqual([]);
    expect(agentProcesses().some((line) => line.includes("claude-agent-acp"))).toBe(true);

    // Now that the options are known, values the agent does not offer are refused before reaching it.
    const unknownValue = await t!.json<{ error: string }>("POST", `/v1/sessions/${session.id}/config`, { configId: "mode", value: "turbo" });
    expect(unknownValue.status).toBe(400);
    expect(unknownValue.body.error).toContain("acceptEdits");
    expect((await t!.json("POST", `/v1/sessions/${session.id}/config`, { configId: "nope", value: "x" })).status).toBe(400);
  });

  test("a prompt fails with the agent's authentication error, shown on the session; the reply ends in error", async () => {
    const sent = await t!.json<unknown>("POST", `/v1/sessions/${session.id}/prompts`, { text: "Say hello." });
    expect(sent.status).toBe(201);
    assertMatchesSchema(QueuedPrompt, sent.body);
    const started = performance.now();
    const failed = await until(() => detail(session.id), (d) => d.session.sidebarState === "error", 60_000);
    console.info(`claude-agent-acp.test.ts: the prompt failed after ${Math.round(performance.now() - started)} ms with status ${JSON.stringify(failed.session.status)}`);
    expect(failed.session.status).toMatch(/auth/i);
    expect(failed.session).toMatchObject({ hasUnreadError: true, title: "Say hello.", configSelections: { model: "sonnet" } });
    expect(failed.promptQueue).toEqual([]);
    expect(failed.conversation.map((item) => [item.role, item.text])).toEqual([
      ["user", "Say hello."],
      ["assistant", ""],
    ]);
    expect(lastReply(failed)).toMatchObject({ stopReason: "error", isGenerating: false });

    const events = await t!.json<unknown[]>("GET", `/v1/sessions/${session.id}/events`);
    expect(events.status).toBe(200);
    assertMatchesSchema(Type.Array(EventRecord), events.body);
    const kinds = (events.body as Array<{ kind: string }>).map((event) => event.kind);
    expect(kinds).toContain("session.config");
    expect(kinds).toContain("session.message.completed");
  });

  test("deleting the session stops claude-agent-acp and the claude it started", async () => {
    const running = agentProcesses();
    console.info(`claude-agent-acp.test.ts: running after the failed turn:\n  ${running.join("\n  ")}`);
    const deleted = await t!.json<{ id: string }>("DELETE", `/v1/sessions/${session.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: session.id });
    const left = await until(async () => agentProcesses(), (lines) => lines.length === 0, 10_000);
    expect(left).toEqual([]);
  });
});

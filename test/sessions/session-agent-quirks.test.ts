import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { builtCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { apiClient } from "../helpers/api-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { Harness } from "../../src/schemas/harnesses.ts";
import { QueuedPrompt, SessionConfig } from "../../src/schemas/sessions.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { lastReply, SCRIPTED_AGENT, scriptedAgentEnv, type DetailBody } from "./session-helpers.ts";
import { cleanUpAfterEach, cleanups, processesWith, quirkServer } from "./quirk-server.ts";

// Each behaviour a real agent showed (issue 12), taught to the scripted agent so the main suite keeps
// it fixed: the real agents are checked the same way by `npm run test:agents`.

type ConfigBody = Static<typeof SessionConfig>;

cleanUpAfterEach();

const texts = (detail: DetailBody) => detail.conversation.map((item) => [item.role, item.text, item.stopReason]);

describe("sign-in and load (Gemini, Qwen and Codex refuse both until authenticate; OpenCode, Codex and Qwen replay history)", () => {
  const auth = {
    required: true,
    methods: [
      { id: "browser", name: "Sign in in a browser" },
      { type: "env_var", id: "api-key", name: "Use SCRIPTED_API_KEY", vars: [{ name: "SCRIPTED_API_KEY" }] },
    ],
  };

  test("Atrium signs in with the method the credentials fit; after an idle stop and after a restart the session loads, and the replayed history stays out of the new reply", async () => {
    const clock = new ManualClock();
    const s = await quirkServer(
      { auth, loadSession: true, prompts: {} },
      { agents: "in-process", env: { SCRIPTED_API_KEY: "key" }, server: { config: { agentIdleMinutes: 1 }, tuning: { clock } } },
    );
    const session = await s.newSession();
    expect(texts(await s.turn(session.id, "one"))).toEqual([
      ["user", "one", null],
      ["assistant", "echo one", "end_turn"],
    ]);
    // The idle stop ends the agent; the next prompt starts a new one, which must sign in to load.
    await clock.advance(60_000);
    await until(
      async () => s.scripted.running,
      (running) => running === 0,
    );
    const afterIdle = await s.turn(session.id, "two");
    expect(lastReply(afterIdle)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
    expect(s.scripted.started).toBe(2);
    await s.restart();
    const afterRestart = await s.turn(session.id, "three");
    expect(afterRestart.session).toMatchObject({ sidebarState: "idle", status: null });
    expect(texts(afterRestart)).toEqual([
      ["user", "one", null],
      ["assistant", "echo one", "end_turn"],
      ["user", "two", null],
      ["assistant", "echo two", "end_turn"],
      ["user", "three", null],
      ["assistant", "echo three", "end_turn"],
    ]);
  }, 30_000);

  test("without the credentials the turn fails with the agent's own refusal, named as a sign-in", async () => {
    const s = await quirkServer({ auth, loadSession: true, prompts: {} }, { agents: "in-process" });
    const session = await s.newSession();
    const failed = await s.turn(session.id, "one");
    expect(failed.session.sidebarState).toBe("error");
    expect(failed.session.status).toContain("Scripted agent needs a sign-in");
    expect(failed.session.status).toContain("Authentication required");
    expect(lastReply(failed)).toMatchObject({ text: "", stopReason: "error" });
  });

  test("an agent that kept no session (no turn was answered) gets a new one, and the reply holds nothing else", async () => {
    const s = await quirkServer(
      { loadSession: true, prompts: { fail: [{ fail: { code: -32603, message: "Internal error", data: { details: "Connection error." } } }] } },
      { agents: "in-process" },
    );
    const session = await s.newSession();
    expect((await s.turn(session.id, "fail")).session.status).toBe("Internal error: Connection error.");
    await s.restart();
    const next = await s.turn(session.id, "hello");
    expect(lastReply(next)).toMatchObject({ text: "echo hello", stopReason: "end_turn" });
    expect(next.session.status).toContain("could not load its earlier session");
  });
});

describe("config selections (Claude, OpenCode and Codex ran their defaults after a restart)", () => {
  test("selections are applied again on a new agent process, in order, and the agent runs them", async () => {
    const s = await quirkServer({ models: true, loadSession: true, prompts: { describe: [{ describeConfig: true }] } }, { agents: "in-process" });
    const session = await s.newSession();
    for (const [configId, value] of [
      ["model", "large"],
      ["effort", "high"],
      ["mode", "default"],
    ]) {
      const set = await s.t.json<ConfigBody>("POST", `/v1/sessions/${session.id}/config`, { configId, value });
      expect(set.status).toBe(200);
      assertMatchesSchema(SessionConfig, set.body);
    }
    expect(lastReply(await s.turn(session.id, "describe"))!.text).toBe("mode=default model=large effort=high");
    await s.restart();
    // The detail carries the options themselves, before any agent runs or event arrives.
    const opened = await s.detail(session.id);
    expect(opened.configOptions.map((option) => [option.id, option.currentValue])).toEqual([
      ["mode", "default"],
      ["model", "large"],
      ["effort", "high"],
    ]);
    expect(opened.configOptions.find((option) => option.id === "model")!.options.map((option) => option.value)).toEqual(["small", "large"]);
    // The new process starts at its defaults (plan, small, low): asked, it says it runs the choices.
    const asked = await s.turn(session.id, "describe");
    expect(lastReply(asked)!.text).toBe("mode=default model=large effort=high");
    expect(asked.session.configSelections).toEqual({ mode: "default", model: "large", effort: "high" });
    expect(asked.session.unavailableConfigSelections).toEqual({});
  });

  test("an agent that reports the session's model after a load but runs its default (Claude: 1M context became 200k) is given the model again", async () => {
    const script = { models: true, loadSession: true, forgetsModelOnLoad: true, prompts: { describe: [{ describeConfig: true }] } };
    // Without the harness quirk the agent's report is taken at its word, and it runs its default.
    for (const [quirks, runs] of [
      [{}, "small"],
      [{ modelUnsureAfterLoad: true }, "large"],
    ] as const) {
      const s = await quirkServer(script, { agents: "in-process", quirks });
      const session = await s.newSession();
      expect((await s.t.json<ConfigBody>("POST", `/v1/sessions/${session.id}/config`, { configId: "model", value: "large" })).status).toBe(200);
      expect(lastReply(await s.turn(session.id, "describe"))!.text).toBe("mode=plan model=large effort=low");
      await s.restart();
      const after = await s.turn(session.id, "describe");
      expect(lastReply(after)!.text).toBe(`mode=plan model=${runs} effort=low`);
      expect(after.session.configSelections.model).toBe("large");
    }
  });

  test("the older modes and models (Gemini) are config options that can be set and are applied again", async () => {
    const s = await quirkServer({ dialect: "legacy", loadSession: true, prompts: { describe: [{ describeConfig: true }] } }, { agents: "in-process" });
    const session = await s.newSession();
    const set = await s.t.json<ConfigBody>("POST", `/v1/sessions/${session.id}/config`, { configId: "model", value: "large" });
    expect(set.status).toBe(200);
    assertMatchesSchema(SessionConfig, set.body);
    expect(set.body.configOptions.map((option) => [option.id, option.category, option.currentValue])).toEqual([
      ["mode", "mode", "plan"],
      ["model", "model", "large"],
    ]);
    expect((await s.t.json("POST", `/v1/sessions/${session.id}/config`, { configId: "mode", value: "default" })).status).toBe(200);
    expect(lastReply(await s.turn(session.id, "describe"))!.text).toBe("mode=default model=large effort=low");
    await s.restart();
    expect(lastReply(await s.turn(session.id, "describe"))!.text).toBe("mode=default model=large effort=low");
  });

  test("a current model the agent leaves out of its own list (Qwen) is listed", async () => {
    const s = await quirkServer({ models: true, unlistedModel: true, prompts: {} }, { agents: "in-process" });
    const session = await s.newSession();
    const set = await s.t.json<ConfigBody>("POST", `/v1/sessions/${session.id}/config`, { configId: "mode", value: "default" });
    expect(set.status).toBe(200);
    const model = set.body.configOptions.find((option) => option.id === "model")!;
    expect(model.currentValue).toBe("custom-model");
    expect(model.options.map((option) => option.value)).toEqual(["custom-model", "small", "large"]);
  });
});

describe("turns that fail, stall or will not stop", () => {
  test("the reason an agent puts in its error's data is shown (Codex: data.message, Qwen: data.details)", async () => {
    const codexError = {
      code: -32603,
      message: "Internal error",
      data: {
        message: "stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)",
        codex_error_info: "other",
      },
    };
    const s = await quirkServer({ prompts: { codex: [{ fail: codexError }] } }, { agents: "in-process" });
    const session = await s.newSession();
    const failed = await s.turn(session.id, "codex");
    expect(failed.session.status).toBe(`Internal error: ${codexError.data.message}`);
  });

  test("the queue moves on after a failed turn, and a failure is not held back waiting for a crash", async () => {
    const s = await quirkServer(
      { prompts: { fail: [{ fail: { code: -32603, message: "Internal error", data: { details: "Connection error." } } }] } },
      { agents: "in-process" },
    );
    const session = await s.newSession();
    await s.turn(session.id, "warm up");
    const started = performance.now();
    await s.prompt(session.id, "fail");
    await s.prompt(session.id, "after");
    const done = await s.until(session.id, (d) => d.conversation.length === 6 && !lastReply(d)!.isGenerating && d.session.sidebarState !== "working");
    const elapsedMs = performance.now() - started;
    expect(texts(done).slice(2)).toEqual([
      ["user", "fail", null],
      ["assistant", "", "error"],
      ["user", "after", null],
      ["assistant", "echo after", "end_turn"],
    ]);
    expect(done.promptQueue).toEqual([]);
    // The agent answered with an error and is still running: no wait for it to exit (it was 500 ms).
    expect(elapsedMs).toBeLessThan(450);
  });

  test("a cancel the agent does not honour (Gemini kept working a minute): the turn ends within the grace, the agent is stopped and starts again for the next prompt", async () => {
    const s = await quirkServer(
      { loadSession: true, prompts: { stuck: [{ chunk: "working" }, { hang: true }] } },
      { agents: "in-process", server: { tuning: { modules: { sessions: { cancelGraceMs: 300 } } } } },
    );
    const session = await s.newSession();
    await s.prompt(session.id, "stuck");
    await s.until(session.id, (d) => lastReply(d)?.text === "working");
    expect(s.scripted.running).toBe(1);
    const started = performance.now();
    expect((await s.t.json("POST", `/v1/sessions/${session.id}/cancel`)).status).toBe(200);
    const settled = await s.until(session.id, (d) => !lastReply(d)!.isGenerating && d.session.sidebarState !== "working", 3000);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(lastReply(settled)).toMatchObject({ text: "working", stopReason: "cancelled" });
    expect(settled.session).toMatchObject({ sidebarState: "idle", status: null });
    await until(
      async () => s.scripted.running,
      (running) => running === 0,
      3000,
    );
    expect(lastReply(await s.turn(session.id, "after"))).toMatchObject({ text: "echo after", stopReason: "end_turn" });
    expect(s.scripted.started).toBe(2);
  });

  test("a quiet agent (retrying an unreachable provider): the status says so while the turn runs, and clears when it speaks", async () => {
    const s = await quirkServer(
      { prompts: { slow: [{ gate: "spoke" }, { chunk: "done" }] } },
      { agents: "in-process", server: { tuning: { modules: { sessions: { silenceNoticeMs: 200 } } } } },
    );
    const session = await s.newSession();
    await s.prompt(session.id, "slow");
    const quiet = await s.until(session.id, (d) => d.session.status !== null);
    expect(quiet.session.sidebarState).toBe("working");
    expect(quiet.session.status).toMatch(/^no word from the agent for \d+ s/);
    s.scripted.openGate("spoke");
    const done = await s.until(session.id, (d) => !lastReply(d)!.isGenerating);
    expect(lastReply(done)).toMatchObject({ text: "done", stopReason: "end_turn" });
    expect(done.session.status).toBeNull();
  });

  test("a slow --version (Gemini takes 4 s on a busy machine) keeps the harness ready, and sessions run", async () => {
    const s = await quirkServer(
      { prompts: {} },
      { agents: "in-process", env: { SCRIPTED_AGENT_VERSION_DELAY: "2" }, server: { tuning: { modules: { harnesses: { probeTimeoutMs: 200 } } } } },
    );
    const harness = await s.t.json<Static<typeof Harness>>("GET", "/v1/harnesses/scripted");
    assertMatchesSchema(Harness, harness.body);
    expect(harness.body).toMatchObject({ enabled: true, readiness: { state: "ready" } });
    expect(harness.body.readiness.detail).toContain("did not answer within 200 ms");
    const session = await s.newSession();
    expect(lastReply(await s.turn(session.id, "hi"))).toMatchObject({ text: "echo hi", stopReason: "end_turn" });
  });
});

describe("agent processes are ours to stop (codex-acp outlived the server)", () => {
  const starting = { initialize: "hang", prompts: {} };

  test("deleting a session whose agent is still starting stops it at once", async () => {
    const s = await quirkServer(starting, { server: { tuning: { modules: { sessions: { initializeTimeoutMs: 60_000 } } } } });
    const session = await s.newSession();
    await s.prompt(session.id, "hello");
    await until(
      async () => s.agents(),
      (pids) => pids.length > 0,
      5000,
    );
    expect((await s.t.json("DELETE", `/v1/sessions/${session.id}`)).status).toBe(200);
    await until(
      async () => s.agents(),
      (pids) => pids.length === 0,
      2000,
    );
  });

  test("stopping the server while an agent starts stops it", async () => {
    const s = await quirkServer(starting, { server: { tuning: { modules: { sessions: { initializeTimeoutMs: 60_000 } } } } });
    const session = await s.newSession();
    await s.prompt(session.id, "hello");
    await until(
      async () => s.agents(),
      (pids) => pids.length > 0,
      5000,
    );
    const started = performance.now();
    await s.t.stop();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(s.agents()).toEqual([]);
  });

  test("after a kill -9 of the server, the next start stops the agents it left", async () => {
    const home = makeTempDir("atrium-orphans-");
    const marker = `orphan-${crypto.randomUUID()}`;
    const scriptFile = join(home.path, "script.json");
    // A command the agent runs (terminal/create) outlives the server too, unless it is recorded. One
    // process that never forks: a shell's child shows the shell's command line until it execs, and
    // would come and go in the listing.
    const command = { command: process.execPath, args: ["-e", "setInterval(() => {}, 60_000)", marker] };
    writeFileSync(scriptFile, JSON.stringify({ outlivesClient: true, prompts: { stuck: [{ terminal: command }, { hang: true }] } }));
    const config = {
      harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT, acpArgs: ["--marker", marker] }],
      harnessUpdateCheck: false,
    };
    writeFileSync(join(home.path, "config.json"), JSON.stringify(config));
    const env = scriptedAgentEnv(home.path, scriptFile);
    let serve: ServeProcess | undefined = await startServe(builtCommand, home.path, ["--port", "0"], env);
    let restarted: TestServer | undefined;
    cleanups.push(async () => {
      serve?.child.kill("SIGKILL");
      await serve?.child.exited;
      await restarted?.stop();
      for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL");
      home.remove();
    });
    const token = readFileSync(join(home.path, "token"), "utf8").trim();
    let url = serve.url;
    const call = <T>(method: string, path: string, body?: unknown) => apiClient(url, token).json<T>(method, path, body);
    const project = await call<{ id: string }>("POST", "/v1/projects", { isScratch: true });
    const session = await call<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "scripted" });
    expect(session.status).toBe(201);
    await call("POST", `/v1/sessions/${session.body.id}/prompts`, { text: "stuck" });
    // The agent and the command it started.
    const orphans = await until(
      async () => processesWith(marker),
      (pids) => pids.length >= 2,
      10_000,
    );
    serve.child.kill("SIGKILL");
    await serve.child.exited;
    serve = undefined;
    // Nothing stopped them: they outlive the server, as the agent says once it sees its client gone.
    await until(
      async () => existsSync(join(home.path, "agent-state", "outlived-client")),
      (said) => said,
    );
    expect(processesWith(marker)).toEqual(orphans);
    // The next start on the data dir the killed server left, in this process: the records it finds
    // there are the test, not how it is started.
    restarted = await startTestServer({ dataDir: home.path, config, tuning: { modules: { harnesses: { env } } } });
    url = restarted.url;
    await until(
      async () => processesWith(marker),
      (pids) => pids.length === 0,
      5000,
    );
    const refused = await call<unknown>("POST", "/v1/sessions/ses_nope/cancel");
    assertMatchesSchema(ErrorBody, refused.body);
  }, 40_000);
});

describe("retries", () => {
  test("a prompt retried with the same clientId is one prompt for the session's life: queued, running, done, dropped, or after a restart", async () => {
    // Each turn runs until the test lets it end.
    const s = await quirkServer(
      { loadSession: true, prompts: { slow: [{ gate: "first" }, { chunk: "done" }], "slow again": [{ gate: "second" }, { chunk: "done" }] } },
      { agents: "in-process" },
    );
    const session = await s.newSession();
    const send = async (text: string, clientId: string) => {
      const sent = await s.t.json<Static<typeof QueuedPrompt>>("POST", `/v1/sessions/${session.id}/prompts`, { text, clientId });
      expect(sent.status).toBe(201);
      assertMatchesSchema(QueuedPrompt, sent.body);
      return sent.body;
    };
    const first = await send("slow", "phone-1");
    // Retried while it runs (it left the queue), then after it ended: the same prompt, no new turn.
    await s.until(session.id, (d) => d.session.sidebarState === "working");
    expect(await send("slow", "phone-1")).toEqual(first);
    s.scripted.openGate("first");
    const done = await s.until(session.id, (d) => lastReply(d)?.isGenerating === false);
    expect(await send("slow", "phone-1")).toEqual(first);
    await s.restart();
    expect(await send("slow", "phone-1")).toEqual(first);
    // A queued prompt that was dropped stays dropped for that clientId.
    await send("slow again", "phone-2");
    const queued = await send("later", "phone-3");
    expect((await s.t.json("DELETE", `/v1/sessions/${session.id}/prompts/${queued.id}`)).status).toBe(200);
    expect(await send("later", "phone-3")).toEqual(queued);
    s.scripted.openGate("second");
    const after = await s.until(session.id, (d) => d.conversation.length === done.conversation.length + 2 && !lastReply(d)!.isGenerating);
    expect(after.conversation.map((item) => item.text)).toEqual(["slow", "done", "slow again", "done"]);
    expect(after.promptQueue).toEqual([]);
  });
});

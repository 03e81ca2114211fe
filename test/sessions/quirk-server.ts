import { afterEach, expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mergeOptions, startTestServer, type TestServer, type TestServerOptions } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SessionDetail } from "../../src/schemas/sessions.ts";
import { scriptedAgents, type ScriptedAgents } from "../fixtures/scripted-agent/in-process.ts";
import { lastReply, SCRIPTED_AGENT, scriptedAgentEnv, type DetailBody, type SessionBody, type SessionServerOptions } from "./session-helpers.ts";

/** A test server whose one harness is the scripted agent, run with a quirk a real agent showed. */
export interface QuirkServer {
  t: TestServer;
  /** Stops the server (its agents with it) and starts a new one on the same data dir. */
  restart(): Promise<void>;
  newSession(): Promise<SessionBody>;
  detail(id: string): Promise<DetailBody>;
  until(id: string, done: (detail: DetailBody) => boolean, timeoutMs?: number): Promise<DetailBody>;
  prompt(id: string, text: string): Promise<void>;
  /** Sends a prompt and waits for its turn to end; returns the session then. */
  turn(id: string, text: string): Promise<DetailBody>;
  /** The scripted agent processes of this server (their command line carries its marker). */
  agents(): number[];
  /** The scripted agents that run in this process (counted), and the gates agents wait at. */
  scripted: ScriptedAgents;
  /** Replaces the script: agents started from now on run it. */
  script(value: unknown): void;
}

/** What the test file's tests leave to undo (servers, temp dirs, processes), undone after each test. */
export const cleanups: Array<() => Promise<void> | void> = [];

/** Registers the undoing of `cleanups` after each test of the calling file. */
export function cleanUpAfterEach(): void {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
}

/** Pids of processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const listed = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return listed.stdout
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

export async function quirkServer(
  script: unknown,
  /** `quirks`: the harness's, as config.json declares them; `agents`: how its agents run (see startSessionServer). */
  options: { env?: Record<string, string>; server?: TestServerOptions; quirks?: Record<string, unknown>; agents?: SessionServerOptions["agents"] } = {},
): Promise<QuirkServer> {
  const dir = makeTempDir("atrium-quirks-");
  const scriptFile = join(dir.path, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  const marker = `quirk-${crypto.randomUUID()}`;
  const env = scriptedAgentEnv(dir.path, scriptFile, options.env);
  const scripted = scriptedAgents(env.SCRIPTED_AGENT_STATE!);
  const inProcess = options.agents === "in-process" ? { openAgentChannel: scripted.open } : {};
  const defaults: TestServerOptions = {
    dataDir: join(dir.path, "data"),
    config: { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT, acpArgs: ["--marker", marker], quirks: options.quirks }] },
    tuning: {
      modules: { harnesses: { env, probeTimeoutMs: 5000 }, sessions: { initializeTimeoutMs: 10_000, ...inProcess } },
    },
  };
  const serverOptions = mergeOptions(defaults, options.server ?? {});
  let t = await startTestServer(serverOptions).catch((error: unknown) => {
    // A start that fails leaves no temp dir behind.
    dir.remove();
    throw error;
  });
  await t.ready();
  cleanups.push(async () => {
    await t.stop();
    dir.remove();
  });
  const detail = async (id: string) => {
    const { status, body } = await t.json<DetailBody>("GET", `/v1/sessions/${id}`);
    expect(status).toBe(200);
    assertMatchesSchema(SessionDetail, body);
    return body;
  };
  const prompt = async (id: string, text: string) => {
    expect((await t.json("POST", `/v1/sessions/${id}/prompts`, { text })).status).toBe(201);
  };
  const server: QuirkServer = {
    get t() {
      return t;
    },
    async restart() {
      await t.stop();
      t = await startTestServer(serverOptions);
      await t.ready();
    },
    async newSession() {
      const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
      const created = await t.json<SessionBody>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "scripted" });
      expect(created.status).toBe(201);
      return created.body;
    },
    detail,
    until: (id, done, timeoutMs) => until(() => detail(id), done, timeoutMs),
    prompt,
    async turn(id, text) {
      const before = (await detail(id)).conversation.length;
      await prompt(id, text);
      return server.until(id, (d) => d.conversation.length >= before + 2 && !lastReply(d)!.isGenerating && d.session.sidebarState !== "working");
    },
    agents: () => processesWith(marker),
    scripted,
    script: (value) => writeFileSync(scriptFile, JSON.stringify(value)),
  };
  return server;
}

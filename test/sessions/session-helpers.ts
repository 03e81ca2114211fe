import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { mergeOptions, type TestServerOptions } from "../helpers/test-server.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { SCRIPTED_AGENT, scriptedAgents, type ScriptedAgents } from "../fixtures/scripted-agent/in-process.ts";

export type SessionBody = Static<typeof Session>;
export type DetailBody = Static<typeof SessionDetail>;

/** A server with the scripted ACP agent as harness `scripted`, driven by a script the test writes. */
export interface SessionTestServer extends TestServer {
  script(value: unknown): void;
  /** Where the scripted agent keeps its sessions and markers ($SCRIPTED_AGENT_STATE). */
  stateDir: string;
  /** The scripted agents (those that run in this process are counted), and the gates they wait at. */
  agents: ScriptedAgents;
  /** Creates a scratch project and a session of `harnessId` in it. */
  newSession(harnessId?: string): Promise<SessionBody>;
  detail(id: string, query?: string): Promise<DetailBody>;
  /** Polls the session until `done` holds. */
  until(id: string, done: (detail: DetailBody) => boolean, timeoutMs?: number): Promise<DetailBody>;
  cleanup(): Promise<void>;
}

/** The environment the scripted agent runs in: its script, where it keeps sessions, and Bun. */
export function scriptedAgentEnv(dir: string, scriptFile: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    HOME: dir,
    SCRIPTED_AGENT_SCRIPT: scriptFile,
    SCRIPTED_AGENT_STATE: join(dir, "agent-state"),
    SCRIPTED_AGENT_BUN: process.execPath,
    ...extra,
  };
}

export { SCRIPTED_AGENT };

export interface SessionServerOptions extends TestServerOptions {
  /**
   * How the scripted harness's agents run: `in-process` (ACP over in-memory streams, for what Atrium
   * does with what an agent says) or `processes` (the default: child processes, for what is about
   * processes: crashes, signals, stderr, exits, process groups).
   */
  agents?: "in-process" | "processes";
}

export async function startSessionServer({ agents: agentsAs = "processes", ...options }: SessionServerOptions = {}): Promise<SessionTestServer> {
  const dir = makeTempDir("atrium-sessions-");
  const scriptFile = join(dir.path, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ prompts: {} }));
  const stateDir = join(dir.path, "agent-state");
  const agents = scriptedAgents(stateDir);
  const defaults: TestServerOptions = {
    config: { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
    tuning: {
      modules: {
        harnesses: { env: scriptedAgentEnv(dir.path, scriptFile), probeTimeoutMs: 5000 },
        sessions: { initializeTimeoutMs: 5000, ...(agentsAs === "in-process" ? { openAgentChannel: agents.open } : {}) },
      },
    },
  };
  const t = await startTestServer(mergeOptions(defaults, options)).catch((error: unknown) => {
    // A start that fails leaves no temp dir behind.
    dir.remove();
    throw error;
  });
  const detail = async (id: string, query = "") => (await t.json<DetailBody>("GET", `/v1/sessions/${id}${query}`)).body;
  return {
    ...t,
    script: (value) => writeFileSync(scriptFile, JSON.stringify(value)),
    stateDir,
    agents,
    async newSession(harnessId = "scripted") {
      await t.ready();
      const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
      const created = await t.json<SessionBody>("POST", "/v1/sessions", { projectId: project.body.id, harnessId });
      if (created.status !== 201) throw new Error(`session not created: ${JSON.stringify(created.body)}`);
      return created.body;
    },
    detail,
    until: (id, done, timeoutMs) => until(() => detail(id), done, timeoutMs),
    async cleanup() {
      await t.stop();
      dir.remove();
    },
  };
}

export const lastReply = (detail: DetailBody) => detail.conversation.filter((item) => item.role === "assistant").at(-1);
export const idle = (detail: DetailBody) => detail.session.sidebarState !== "working" && detail.promptQueue.length === 0 && !lastReply(detail)?.isGenerating;

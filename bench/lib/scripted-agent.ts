import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { apiCaller, type ApiCall } from "./api.ts";
import { OFFLINE_CONFIG, startAtrium, type RunningAtrium } from "./atrium.ts";
import { awaitHarnessReady, type HarnessReadiness } from "./harness-ready.ts";

/** The suite's scripted agent: an ACP agent that plays the steps a script gives each prompt. */
const SCRIPTED_AGENT = join(import.meta.dir, "..", "..", "test", "fixtures", "scripted-agent", "scripted-agent");
/** The harness id the scripted agent is declared under. */
export const SCRIPTED_HARNESS_ID = "scripted";
/** How long the server's first scan may take to find the scripted agent ready. */
export const HARNESS_READY_MS = 15_000;

/** What the server is started with to run the scripted agent. */
export interface ScriptedAgentServer {
  env: Record<string, string>;
  config: Record<string, unknown>;
}

/**
 * What a server needs to run the scripted agent as harness `scripted` with `prompts` (a prompt's text,
 * or `*`, to its steps): the environment to add and the config. The script and the agent's state live
 * in `dir`. As test/sessions/session-helpers.ts `scriptedAgentEnv`: the agent inherits the server's environment.
 */
export function scriptedAgentServer(dir: string, prompts: Record<string, unknown>): ScriptedAgentServer {
  const scriptFile = join(dir, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ prompts }));
  mkdirSync(join(dir, "agent-state"));
  return {
    env: {
      PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
      HOME: dir,
      SCRIPTED_AGENT_SCRIPT: scriptFile,
      SCRIPTED_AGENT_STATE: join(dir, "agent-state"),
      SCRIPTED_AGENT_BUN: process.execPath,
    },
    config: { ...OFFLINE_CONFIG, harnesses: [{ id: SCRIPTED_HARNESS_ID, name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  };
}

export interface ScriptedAtrium {
  atrium: RunningAtrium;
  call: ApiCall;
  /** A scratch project for the sessions. */
  projectId: string;
}

/**
 * The compiled server started with `server` (its config declaring harness `scripted`), once that
 * harness is ready, with a scratch project named `projectName`. A step after the start that fails
 * stops the server before the error is thrown on.
 */
export async function startScriptedAtrium(binary: string, server: ScriptedAgentServer, projectName: string): Promise<ScriptedAtrium> {
  const atrium = await startAtrium(binary, server.env, server.config);
  try {
    const call = apiCaller(atrium.server.url, atrium.token);
    await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), SCRIPTED_HARNESS_ID, HARNESS_READY_MS);
    const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name: projectName });
    return { atrium, call, projectId: project.id };
  } catch (error) {
    await atrium.stop();
    throw error;
  }
}

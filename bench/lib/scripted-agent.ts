import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { OFFLINE_CONFIG } from "./atrium.ts";

/** The suite's scripted agent: an ACP agent that plays the steps a script gives each prompt. */
const SCRIPTED_AGENT = join(import.meta.dir, "..", "..", "test", "fixtures", "scripted-agent", "scripted-agent");

/**
 * What a server needs to run the scripted agent as harness `scripted` with `prompts` (a prompt's text,
 * or `*`, to its steps): the environment to add and the config. The script and the agent's state live
 * in `dir`. As test/sessions/session-helpers.ts `scriptedAgentEnv`: the agent inherits the server's environment.
 */
export function scriptedAgentServer(dir: string, prompts: Record<string, unknown>): { env: Record<string, string>; config: Record<string, unknown> } {
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
    config: { ...OFFLINE_CONFIG, harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  };
}

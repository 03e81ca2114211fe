/** The agents the session measurements run, declared as custom harnesses: what a server is started with for each. */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { StreamReport } from "../workers/streaming-agent.ts";
import { LOAD_CPU, onCpu, until } from "./processes.ts";

export interface AgentServer {
  env: Record<string, string>;
  config: Record<string, unknown>;
  harness: string;
}

/**
 * The suite's scripted agent (test/fixtures/scripted-agent) as harness `scripted`, playing `prompts`
 * (a prompt's text, or `*`, to its steps) and the rest of `script`; its script and state live in `dir`.
 * It inherits the server's environment, and with it the server's CPU.
 */
export function scriptedAgent(dir: string, prompts: Record<string, unknown>, script: Record<string, unknown> = {}): AgentServer {
  const scriptFile = join(dir, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ ...script, prompts }));
  mkdirSync(join(dir, "agent-state"));
  const executable = join(import.meta.dir, "..", "..", "test", "fixtures", "scripted-agent", "scripted-agent");
  return {
    env: {
      PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
      HOME: dir,
      SCRIPTED_AGENT_SCRIPT: scriptFile,
      SCRIPTED_AGENT_STATE: join(dir, "agent-state"),
      SCRIPTED_AGENT_BUN: process.execPath,
    },
    config: { harnesses: [{ id: "scripted", name: "Scripted agent", executable }] },
    harness: "scripted",
  };
}

/** bench/workers/streaming-agent.ts as the server and the bare-client baseline start it: pinned to the load CPU, never the server's. */
export const streamingAgentCommand = (): string[] => onCpu(LOAD_CPU, [process.execPath, join(import.meta.dir, "..", "workers", "streaming-agent.ts")]);

export interface StreamingAgent extends AgentServer {
  reportsDir: string;
  /** Waits for the agent's report of the stream tagged `tag`, and removes it. */
  report(tag: string, timeoutMs: number): Promise<StreamReport>;
}

const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The benchmark's streaming agent as harness `bench-stream`: a custom harness is detected by running
 * its executable with `--version`, so a shell wrapper in `dir` answers that at once and otherwise
 * execs the agent. The agent writes its reports into `dir`/reports.
 */
export function streamingAgent(dir: string): StreamingAgent {
  const wrapper = join(dir, "streaming-agent");
  const reportsDir = join(dir, "reports");
  mkdirSync(reportsDir, { recursive: true });
  const version = '[ "$1" = "--version" ] && { echo "bench-streaming-agent 1.0.0"; exit 0; }';
  writeFileSync(wrapper, ["#!/bin/sh", version, `exec ${streamingAgentCommand().map(shellQuote).join(" ")}`, ""].join("\n"));
  chmodSync(wrapper, 0o755);
  return {
    env: { STREAMING_AGENT_REPORTS: reportsDir },
    config: { harnesses: [{ id: "bench-stream", name: "Benchmark streaming agent", executable: wrapper }] },
    harness: "bench-stream",
    reportsDir,
    async report(tag, timeoutMs) {
      const file = join(reportsDir, `${tag}.json`);
      await until(() => (existsSync(file) ? true : undefined), timeoutMs, `the agent's report ${tag}`, 1);
      const report = JSON.parse(readFileSync(file, "utf8")) as StreamReport;
      rmSync(file);
      return report;
    },
  };
}

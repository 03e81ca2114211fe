import type { Stream } from "@agentclientprotocol/sdk";
import type { ChildProcesses } from "../../process/child-processes.ts";
import { killGroup } from "../../process/run-command.ts";

/** Keeps the end of what the agent wrote to stderr: the reason given when it crashes. */
const STDERR_TAIL_BYTES = 4096;

/**
 * What Atrium speaks ACP with: the stdio of an agent process it started, in its own process group; or,
 * in tests where a process adds nothing, an agent in this process over in-memory streams.
 */
export interface AgentChannel {
  stream: Stream;
  /** Settles with the exit code when the agent has ended. */
  exited: Promise<number>;
  readonly running: boolean;
  /** The end of what the agent wrote to stderr. */
  stderrTail(): string;
  /** Ends the agent and whatever it started. */
  stop(): void;
}

/** How a session's agent is started: its command, folder and environment, and where its process is recorded. */
export interface AgentSpawn {
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Where the child is recorded while it runs, so shutdown and the next start can stop it. */
  children: ChildProcesses;
}

export type AgentChannelFactory = (spawn: AgentSpawn) => Promise<AgentChannel>;

export class AgentStartError extends Error {}

/** The real thing: the agent's command as a child process, ACP as newline-delimited JSON over its stdio. */
export const spawnAgentChannel: AgentChannelFactory = async (spawn) => {
  let child: Bun.Subprocess<"pipe", "pipe", "pipe">;
  try {
    child = Bun.spawn(spawn.command, { cwd: spawn.cwd, env: spawn.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (error) {
    throw new AgentStartError(`could not start ${spawn.command[0]}: ${(error as Error).message}`);
  }
  spawn.children.track(child, spawn.command);
  // Loaded with the first agent: evaluating the SDK (its schemas) was the largest part of the
  // server's start-up, and a server that runs no session never needs it.
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const stdin = child.stdin;
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      stdin.write(chunk);
      await stdin.flush();
    },
    async close() {
      await stdin.end();
    },
  });
  const stderr = { tail: "" };
  void collectTail(child.stderr, stderr);
  let stopped = false;
  return {
    stream: ndJsonStream(output, child.stdout),
    exited: child.exited,
    get running() {
      return !stopped && child.exitCode === null && child.signalCode === null;
    },
    stderrTail: () => stderr.tail,
    stop: () => {
      stopped = true;
      killGroup(child);
    },
  };
};

async function collectTail(stream: ReadableStream<Uint8Array>, into: { tail: string }): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    into.tail = (into.tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
  }
}

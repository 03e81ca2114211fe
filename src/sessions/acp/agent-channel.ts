import type { Stream } from "@agentclientprotocol/sdk";
import { spawnStdioChild, type StdioChild, type StdioSpawn } from "../../process/stdio-child.ts";

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
  /** How the agent ended ("exit code 3", "signal SIGKILL"); undefined while it runs or where no process runs. */
  exitStatus(): string | undefined;
  /** Ends the agent and whatever it started. */
  stop(): void;
  /** Ends it after a chance to finish its writes (its input closed first), within `graceMs`. */
  stopGently(graceMs: number): Promise<void>;
}

/** How a session's agent is started: its command, folder and environment, and where its process is recorded. */
export type AgentSpawn = StdioSpawn;

export type AgentChannelFactory = (spawn: AgentSpawn) => Promise<AgentChannel>;

export class AgentStartError extends Error {}

/** The real thing: the agent's command as a child process, ACP as newline-delimited JSON over its stdio. */
export const spawnAgentChannel: AgentChannelFactory = async (spawn) => {
  let child: StdioChild;
  try {
    child = spawnStdioChild(spawn);
  } catch (error) {
    throw new AgentStartError((error as Error).message);
  }
  // Loaded with the first agent: evaluating the SDK (its schemas) was the largest part of the
  // server's start-up, and a server that runs no session never needs it.
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const output = new WritableStream<Uint8Array>({ write: (chunk) => child.write(chunk), close: () => child.endInput() });
  return {
    stream: ndJsonStream(output, child.stdout),
    exited: child.exited,
    get running() {
      return child.running;
    },
    stderrTail: () => child.stderrTail(),
    exitStatus: () => child.exitStatus(),
    stop: () => child.stop(),
    stopGently: (graceMs) => child.stopGently(graceMs),
  };
};

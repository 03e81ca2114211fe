import type { AgentApp, AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { AgentChannel, AgentChannelFactory, AgentSpawn } from "../../src/sessions/acp/agent-channel.ts";

/** Two ends of an ACP connection in this process, as the SDK pairs them for its own in-process connections. */
function streamPair(): [Stream, Stream] {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return [
    { writable: toAgent.writable, readable: toClient.readable },
    { writable: toClient.writable, readable: toAgent.readable },
  ];
}

/** The end of what an agent logged that is kept, as a process's stderr tail is. */
const LOG_TAIL_LINES = 20;

/**
 * Builds the agent of one start from what its process would have been given (`spawn`: command,
 * folder, environment); `log` is its stderr, told to Atrium line by line as a process's is.
 */
export type InMemoryAgentBuilder = (spawn: AgentSpawn, log: (line: string) => void) => AgentApp;

export interface InMemoryAgents {
  open: AgentChannelFactory;
  /** Agents started so far. */
  readonly started: number;
  /** Agents started and not stopped. */
  readonly running: number;
}

/**
 * Agents built with the ACP SDK that run in the test's process: each session's agent start connects a
 * new one (from `build`) over in-memory streams. For tests of what Atrium does with what an agent
 * says, where a child process adds nothing.
 */
export function inMemoryAgents(build: InMemoryAgentBuilder): InMemoryAgents {
  let started = 0;
  let running = 0;
  const open: AgentChannelFactory = async (spawn) => {
    const [clientEnd, agentEnd] = streamPair();
    const logged: string[] = [];
    const log = (line: string) => {
      logged.push(line);
      logged.splice(0, logged.length - LOG_TAIL_LINES);
      spawn.onStderrLine?.(line);
    };
    const connection = build(spawn, log).connect(agentEnd);
    started++;
    running++;
    let stopped = false;
    const exited = connection.closed.then(() => 0);
    void exited.then(() => {
      if (!stopped) running--;
      stopped = true;
    });
    const channel: AgentChannel = {
      stream: clientEnd,
      exited,
      get running() {
        return !stopped;
      },
      stderrTail: () => logged.map((line) => `${line}\n`).join(""),
      exitStatus: () => undefined,
      stop: () => connection.close(),
      stopGently: async () => connection.close(),
    };
    return channel;
  };
  return {
    open,
    get started() {
      return started;
    },
    get running() {
      return running;
    },
  };
}

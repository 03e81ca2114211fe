import type { AgentApp, AnyMessage, Stream } from "@agentclientprotocol/sdk";
import type { AgentChannel, AgentChannelFactory } from "../../src/sessions/acp/agent-channel.ts";

/** Two ends of an ACP connection in this process, as the SDK pairs them for its own in-process connections. */
function streamPair(): [Stream, Stream] {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return [
    { writable: toAgent.writable, readable: toClient.readable },
    { writable: toClient.writable, readable: toAgent.readable },
  ];
}

/**
 * Agents built with the ACP SDK that run in the test's process: each session's agent start connects a
 * new one (from `build`) over in-memory streams. For tests of what Atrium does with what an agent
 * says, where a child process adds nothing. `started` counts the agents started, `running` those not stopped.
 */
export function inMemoryAgents(build: () => AgentApp): { open: AgentChannelFactory; readonly started: number; readonly running: number } {
  let started = 0;
  let running = 0;
  const open: AgentChannelFactory = async () => {
    const [clientEnd, agentEnd] = streamPair();
    const connection = build().connect(agentEnd);
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
      stderrTail: () => "",
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

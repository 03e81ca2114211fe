import { runEchoAgent } from "../../src/acp-echo/echo-agent.ts";
import type { AgentChannelFactory } from "../../src/sessions/acp/agent-channel.ts";

/** A pipe in this process: what is written to `writable` is read from `readable`; `close` ends it from outside. */
function pipe(): { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array>; close(): void } {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      feed.close();
    } catch {
      // the reading end was cancelled already
    }
  };
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      feed = controller;
    },
    cancel() {
      closed = true;
    },
  });
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      if (!closed) feed.enqueue(chunk);
    },
    close,
  });
  return { writable, readable, close };
}

/**
 * The echo agent as a session starts it (`atrium acp-echo --skills-dir <folder>`, ACP as
 * newline-delimited JSON), but run in this process over in-memory pipes: the same agent, the same
 * skills folder the harness names on its command line, without starting a process.
 */
export const echoAgentInProcess: AgentChannelFactory = async (spawn) => {
  const at = spawn.command.indexOf("--skills-dir");
  const skillsDir = at === -1 ? undefined : spawn.command[at + 1];
  const toAgent = pipe();
  const fromAgent = pipe();
  let running = true;
  const exited = runEchoAgent(fromAgent.writable, toAgent.readable, { skillsDir }).then(
    () => 0,
    () => 1,
  );
  void exited.then(() => {
    running = false;
    fromAgent.close();
  });
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const stop = async () => {
    toAgent.close();
    await exited;
  };
  return {
    stream: ndJsonStream(toAgent.writable, fromAgent.readable),
    exited,
    get running() {
      return running;
    },
    stderrTail: () => "",
    exitStatus: () => undefined,
    stop: () => void stop(),
    stopGently: stop,
  };
};

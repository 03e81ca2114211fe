import type { ClientConnection } from "@agentclientprotocol/sdk";
import type * as acp from "@agentclientprotocol/sdk";
import { AcpRefusal } from "./acp-refusal.ts";
import { killGroup } from "../../process/run-command.ts";
import type { ChildProcesses } from "../../process/child-processes.ts";
import type { Terminals } from "./terminals.ts";

/** What the agent asks of the client; a session's runtime answers. */
export interface AgentClientHandlers {
  onUpdate(notification: acp.SessionNotification): void;
  requestPermission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  elicit(request: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse>;
  readTextFile(request: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(request: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  /** Answers `terminal/*`. */
  terminals: Terminals;
}

export interface AgentLaunch {
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** `initialize` must be answered within this long, or the agent is stopped and the start fails. */
  initializeTimeoutMs: number;
  /** Where the child is recorded while it runs, so shutdown and the next start can stop it. */
  children: ChildProcesses;
}

/** Keeps the end of what the agent wrote to stderr: the reason given when it crashes. */
const STDERR_TAIL_BYTES = 4096;

/**
 * One agent process speaking ACP over its stdio, in its own process group. The server is the ACP
 * client: requests from the agent go to the handlers; `exited` settles when the process ends.
 */
export class AgentProcess {
  readonly exited: Promise<number>;
  private stopped = false;

  private constructor(
    private readonly child: Bun.Subprocess<"pipe", "pipe", "pipe">,
    private readonly connection: ClientConnection,
    readonly capabilities: acp.AgentCapabilities,
    /** The sign-ins the agent offers for `authenticate`. */
    readonly authMethods: acp.AuthMethod[],
    private readonly stderr: { tail: string },
  ) {
    this.exited = child.exited;
  }

  /** Starts the agent and waits for its `initialize` answer; an abort ends the start and the process at once. */
  static async start(launch: AgentLaunch, handlers: AgentClientHandlers, signal?: AbortSignal): Promise<AgentProcess> {
    if (signal?.aborted) throw new AgentStartError(`${launch.command[0]} was not started: the session was stopped`);
    let child: Bun.Subprocess<"pipe", "pipe", "pipe">;
    try {
      child = Bun.spawn(launch.command, { cwd: launch.cwd, env: launch.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
    } catch (error) {
      throw new AgentStartError(`could not start ${launch.command[0]}: ${(error as Error).message}`);
    }
    launch.children.track(child, launch.command);
    // Loaded with the first agent: evaluating the SDK (its schemas) was the largest part of the
    // server's start-up, and a server that runs no session never needs it.
    const { client, ndJsonStream, PROTOCOL_VERSION, RequestError } = await import("@agentclientprotocol/sdk");
    /** Answers an agent's request; a refusal becomes the protocol's error of its kind. */
    const serve =
      <P, R>(handle: (params: P) => R | Promise<R>) =>
      async ({ params }: { params: P }): Promise<R> => {
        try {
          return await handle(params);
        } catch (error) {
          if (!(error instanceof AcpRefusal)) throw error;
          if (error.kind === "resourceNotFound") throw RequestError.resourceNotFound(error.message);
          throw error.kind === "invalidParams" ? RequestError.invalidParams(undefined, error.message) : RequestError.internalError(undefined, error.message);
        }
      };
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
    const app = client({ name: "atrium" })
      .onNotification("session/update", ({ params }) => handlers.onUpdate(params))
      .onRequest("session/request_permission", ({ params, signal }) => handlers.requestPermission(params, signal))
      .onRequest("elicitation/create", ({ params, signal }) => handlers.elicit(params, signal))
      .onRequest(
        "fs/read_text_file",
        serve((params: acp.ReadTextFileRequest) => handlers.readTextFile(params)),
      )
      .onRequest(
        "fs/write_text_file",
        serve((params: acp.WriteTextFileRequest) => handlers.writeTextFile(params)),
      )
      .onRequest(
        "terminal/create",
        serve((params: acp.CreateTerminalRequest) => handlers.terminals.create(params)),
      )
      .onRequest(
        "terminal/output",
        serve((params: acp.TerminalOutputRequest) => {
          const { output, truncated, exitCode, signal } = handlers.terminals.output(params.terminalId);
          const ended = exitCode !== null || signal !== null;
          return { output, truncated, ...(ended ? { exitStatus: { exitCode, signal } } : {}) };
        }),
      )
      .onRequest(
        "terminal/wait_for_exit",
        serve((params: acp.WaitForTerminalExitRequest) => handlers.terminals.waitForExit(params.terminalId)),
      )
      .onRequest(
        "terminal/kill",
        serve((params: { terminalId: string }) => {
          handlers.terminals.kill(params.terminalId);
          return {};
        }),
      )
      .onRequest(
        "terminal/release",
        serve((params: { terminalId: string }) => {
          handlers.terminals.release(params.terminalId);
          return {};
        }),
      );
    const connection = app.connect(ndJsonStream(output, child.stdout));
    const stderr = { tail: "" };
    void AgentProcess.collectStderr(child.stderr, stderr);
    const initialize = connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, elicitation: { form: {} } },
      clientInfo: { name: "atrium", version: "1" },
    });
    try {
      // One promise settled by whichever comes first; later outcomes are no-ops, never unhandled.
      const answer = await new Promise<acp.InitializeResponse>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new AgentStartError(`${launch.command[0]} did not answer initialize within ${launch.initializeTimeoutMs} ms`)),
          launch.initializeTimeoutMs,
        );
        const exitedEarly = (code: number) =>
          new AgentStartError(`${launch.command[0]} exited with ${code} before answering initialize${stderr.tail ? `: ${lastLine(stderr.tail)}` : ""}`);
        void child.exited.then((code) => reject(exitedEarly(code)));
        signal?.addEventListener("abort", () => reject(new AgentStartError(`${launch.command[0]} was stopped while it started`)), { once: true });
        initialize
          .then(resolve, async (error: unknown) => {
            // The connection closes before the exit is seen; the exit (and its stderr) says more.
            const code = await Promise.race([child.exited, Bun.sleep(500).then(() => undefined)]);
            reject(code === undefined ? error : exitedEarly(code));
          })
          .finally(() => clearTimeout(timer));
      });
      return new AgentProcess(child, connection, answer.agentCapabilities ?? {}, answer.authMethods ?? [], stderr);
    } catch (error) {
      connection.close();
      killGroup(child);
      if (error instanceof AgentStartError) throw error;
      throw new AgentStartError(`${launch.command[0]} failed to initialize: ${(error as Error).message}`);
    }
  }

  private static async collectStderr(stream: ReadableStream<Uint8Array>, into: { tail: string }): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      into.tail = (into.tail + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
    }
  }

  /** The last thing the agent wrote to stderr, for the error a crash is reported with. */
  lastStderrLine(): string {
    return lastLine(this.stderr.tail);
  }

  async authenticate(methodId: string): Promise<void> {
    await this.connection.agent.request("authenticate", { methodId });
  }

  newSession(request: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    return this.connection.agent.request("session/new", request);
  }

  loadSession(request: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
    return this.connection.agent.request("session/load", request);
  }

  prompt(request: acp.PromptRequest): Promise<acp.PromptResponse> {
    return this.connection.agent.request("session/prompt", request);
  }

  cancel(sessionId: string): Promise<void> {
    return this.connection.agent.notify("session/cancel", { sessionId });
  }

  async setConfigOption(request: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
    return this.connection.agent.request("session/set_config_option", request);
  }

  async setMode(request: acp.SetSessionModeRequest): Promise<void> {
    await this.connection.agent.request("session/set_mode", request);
  }

  /** The older model choice (Gemini, Qwen): `session/set_model`, from before config options. */
  async setModel(sessionId: string, modelId: string): Promise<void> {
    await this.connection.agent.request("session/set_model", { sessionId, modelId });
  }

  get isRunning(): boolean {
    return !this.stopped && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends the agent and whatever it started. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.connection.close();
    killGroup(this.child);
  }
}

export class AgentStartError extends Error {}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .filter((line) => line.trim().length > 0)
      .at(-1)
      ?.trim() ?? ""
  );
}

import type { ClientApp, ClientConnection } from "@agentclientprotocol/sdk";
import type * as acp from "@agentclientprotocol/sdk";
import type { ForkSessionRequest, ForkSessionResponse, SessionCapabilities } from "@agentclientprotocol/sdk/unstable";
import { AcpRefusal } from "./acp-refusal.ts";
import { AgentStartError, spawnAgentChannel, type AgentChannel, type AgentChannelFactory, type AgentSpawn } from "./agent-channel.ts";
import type { Terminals } from "./terminals.ts";
import { lastLines } from "../../process/stdio-child.ts";

/** What the agent asks of the client; a session's runtime answers. */
export interface AgentClientHandlers {
  onUpdate(notification: acp.SessionNotification): void;
  requestPermission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  elicit(request: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse>;
  readTextFile(request: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(request: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  /** Answers `terminal/*`. */
  terminals: Terminals;
  /** Throws an AcpRefusal when the agent may not write files or run commands in this ACP session. */
  refuseAction(sessionId: string, what: string): void;
}

export interface AgentLaunch extends AgentSpawn {
  /** `initialize` must be answered within this long, or the agent is stopped and the start fails. */
  initializeTimeoutMs: number;
  /** What the agent is reached over; a child process on its stdio unless a test gives another. */
  openChannel?: AgentChannelFactory;
  /** `fs/read_text_file` is not offered: the agent reads files itself (its harness's `readsFilesItself`). */
  noClientFileReads?: boolean;
}

/**
 * One agent speaking ACP, usually a process on its stdio (see agent-channel.ts). The server is the ACP
 * client: requests from the agent go to the handlers; `exited` settles when the agent ends.
 */
export class AgentProcess {
  readonly exited: Promise<number>;
  private stopped = false;

  private constructor(
    private readonly channel: AgentChannel,
    private readonly connection: ClientConnection,
    readonly capabilities: acp.AgentCapabilities,
    /** The sign-ins the agent offers for `authenticate`. */
    readonly authMethods: acp.AuthMethod[],
    /** When the agent last sent a `session/update` (performance.now()). */
    private readonly lastUpdate: { atMs: number },
  ) {
    this.exited = channel.exited;
  }

  /** Starts the agent and waits for its `initialize` answer; an abort ends the start and the process at once. */
  static async start(launch: AgentLaunch, handlers: AgentClientHandlers, signal?: AbortSignal): Promise<AgentProcess> {
    if (signal?.aborted) throw new AgentStartError(`${launch.command[0]} was not started: the session was stopped`);
    const channel = await (launch.openChannel ?? spawnAgentChannel)(launch);
    const sdk = await import("@agentclientprotocol/sdk");
    const lastUpdate = { atMs: 0 };
    const connection = atriumClient(sdk, handlers, lastUpdate).connect(channel.stream);
    try {
      const answer = await initialized(connection, channel, launch, sdk.PROTOCOL_VERSION, signal);
      return new AgentProcess(channel, connection, answer.agentCapabilities ?? {}, answer.authMethods ?? [], lastUpdate);
    } catch (error) {
      connection.close();
      channel.stop();
      if (error instanceof AgentStartError) throw error;
      throw new AgentStartError(`${launch.command[0]} failed to initialize: ${(error as Error).message}`);
    }
  }

  /**
   * Waits until the agent has sent no `session/update` for `quietMs` from now (at most `maxMs`): Gemini CLI
   * answers `session/load` before the history it replays has all been sent.
   */
  async updatesSettled(quietMs: number, maxMs: number): Promise<void> {
    const since = performance.now();
    const deadline = since + maxMs;
    for (;;) {
      const now = performance.now();
      const quietUntil = Math.max(this.lastUpdate.atMs, since) + quietMs;
      if (now >= quietUntil || now >= deadline || !this.isRunning) return;
      await Bun.sleep(Math.min(quietUntil, deadline) - now);
    }
  }

  /** The last thing the agent wrote to stderr, for the error a crash is reported with. */
  lastStderrLine(): string {
    return lastLines(this.channel.stderrTail());
  }

  /** How the agent ended ("exit code 3", "signal SIGKILL"); undefined while it runs. */
  exitStatus(): string | undefined {
    return this.channel.exitStatus();
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

  /** Only for an agent that advertises `sessionCapabilities.fork` (unstable in ACP). */
  forkSession(request: ForkSessionRequest): Promise<ForkSessionResponse> {
    return this.connection.agent.request<ForkSessionResponse, ForkSessionRequest>("session/fork", request);
  }

  /** Whether it advertises `session/fork` (`sessionCapabilities.fork`, unstable in ACP). */
  get canFork(): boolean {
    return Boolean((this.capabilities.sessionCapabilities as SessionCapabilities | null | undefined)?.fork);
  }

  /** Whether it advertises `session/close` (`sessionCapabilities.close`). */
  get canClose(): boolean {
    return Boolean(this.capabilities.sessionCapabilities?.close);
  }

  /** Only for an agent that advertises it (`canClose`). */
  async closeSession(sessionId: string): Promise<void> {
    await this.connection.agent.request("session/close", { sessionId });
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
    return !this.stopped && this.channel.running;
  }

  /** Ends the agent and whatever it started. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.connection.close();
    this.channel.stop();
  }

  /**
   * Ends the agent after a chance to finish its writes: Claude Code writes a turn's transcript just
   * after the turn, and one killed at once cannot load that session again.
   */
  async stopGently(graceMs: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.connection.close();
    await this.channel.stopGently(graceMs);
  }
}

/** The ACP SDK, loaded with the first agent (not at the server's start). */
type AcpSdk = typeof import("@agentclientprotocol/sdk");

/** The ACP client Atrium is: each of the agent's requests goes to the handlers; `lastUpdate` is when it last sent a `session/update`. */
function atriumClient({ client, RequestError }: AcpSdk, handlers: AgentClientHandlers, lastUpdate: { atMs: number }): ClientApp {
  const serve = answering(RequestError);
  return client({ name: "atrium" })
    .onNotification("session/update", ({ params }) => {
      lastUpdate.atMs = performance.now();
      handlers.onUpdate(params);
    })
    .onRequest("session/request_permission", ({ params, signal }) => handlers.requestPermission(params, signal))
    .onRequest("elicitation/create", ({ params, signal }) => handlers.elicit(params, signal))
    .onRequest(
      "fs/read_text_file",
      serve((params: acp.ReadTextFileRequest) => handlers.readTextFile(params)),
    )
    .onRequest(
      "fs/write_text_file",
      serve((params: acp.WriteTextFileRequest) => {
        handlers.refuseAction(params.sessionId, "write files");
        return handlers.writeTextFile(params);
      }),
    )
    .onRequest(
      "terminal/create",
      serve((params: acp.CreateTerminalRequest) => {
        handlers.refuseAction(params.sessionId, "run commands");
        return handlers.terminals.create(params);
      }),
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
}

/** Answers an agent's request with `handle`; a refusal it throws becomes the protocol's error of its kind. */
function answering(RequestError: AcpSdk["RequestError"]) {
  return <P, R>(handle: (params: P) => R | Promise<R>) =>
    async ({ params }: { params: P }): Promise<R> => {
      try {
        return await handle(params);
      } catch (error) {
        if (!(error instanceof AcpRefusal)) throw error;
        if (error.kind === "resourceNotFound") throw RequestError.resourceNotFound(error.message);
        throw error.kind === "invalidParams" ? RequestError.invalidParams(undefined, error.message) : RequestError.internalError(undefined, error.message);
      }
    };
}

/**
 * Sends `initialize` and waits for its answer. The agent exiting first, no answer within
 * `initializeTimeoutMs`, or an abort of `signal` ends the wait with an AgentStartError.
 */
function initialized(
  connection: ClientConnection,
  channel: AgentChannel,
  launch: AgentLaunch,
  protocolVersion: number,
  signal: AbortSignal | undefined,
): Promise<acp.InitializeResponse> {
  const initialize = connection.agent.request("initialize", {
    protocolVersion,
    clientCapabilities: { fs: { readTextFile: !launch.noClientFileReads, writeTextFile: true }, terminal: true, elicitation: { form: {} } },
    clientInfo: { name: "atrium", version: "1" },
  });
  const name = launch.command[0];
  const exitedEarly = (code: number) =>
    new AgentStartError(`${name} exited with ${code} before answering initialize${channel.stderrTail() ? `: ${lastLines(channel.stderrTail())}` : ""}`);
  // One promise settled by whichever comes first; later outcomes are no-ops, never unhandled.
  return new Promise<acp.InitializeResponse>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new AgentStartError(`${name} did not answer initialize within ${launch.initializeTimeoutMs} ms`)),
      launch.initializeTimeoutMs,
    );
    void channel.exited.then((code) => reject(exitedEarly(code)));
    const stoppedWhileStarting = () => reject(new AgentStartError(`${name} was stopped while it started`));
    if (signal?.aborted) stoppedWhileStarting();
    signal?.addEventListener("abort", stoppedWhileStarting, { once: true });
    initialize
      .then(resolve, async (error: unknown) => {
        // The connection closes before the exit is seen; the exit (and its stderr) says more.
        const code = await Promise.race([channel.exited, Bun.sleep(500).then(() => undefined)]);
        reject(code === undefined ? error : exitedEarly(code));
      })
      .finally(() => clearTimeout(timer));
  });
}

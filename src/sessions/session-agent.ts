import type * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "../logging/logger.ts";
import type { AgentQuirks } from "../harness/harness-definition.ts";
import type { BackgroundTask } from "../schemas/sessions.ts";
import type { StoredSession } from "../store/session-repository.ts";
import { NotFoundError } from "../errors.ts";
import { sleepUnlessAborted, type Clock, type ClockTimer } from "../clock.ts";
import type { AgentClientHandlers, AgentLaunch } from "./acp/agent-process.ts";
import { FileAccess } from "./acp/file-access.ts";
import { Terminals, type TerminalOutput } from "./acp/terminals.ts";
import { AgentConnection, type OpenedAgentSession, type SessionMcpServers } from "./agent-connection.ts";
import { AsideSessions, type AsideQuestion } from "./aside-sessions.ts";
import { AgentOpenError } from "./turn-failure.ts";

/** How long an agent stopped gently (idle, or at shutdown) has to finish its writes and exit before it is killed. */
export const AGENT_STOP_GRACE_MS = 1500;

/** How a session's agent is started, and how it signs in. */
export interface SessionLaunch extends AgentLaunch {
  harnessName: string;
  loginInstruction: string | null;
  /** Which of the agent's `authenticate` methods the account's credentials fit. */
  chooseAuthMethod: (offered: acp.AuthMethod[]) => string | undefined;
  mcpServers: SessionMcpServers;
  /** Where the agent's stream departs from the protocol's meaning (its harness's). */
  quirks: AgentQuirks;
}

/** What the agent asks and tells its session (the session's runtime answers). */
export type SessionAgentHandlers = Pick<AgentClientHandlers, "onUpdate" | "requestPermission" | "elicit">;

export interface SessionAgentDeps {
  sessionId: string;
  logger: Logger;
  /** An agent with no turn for this long is stopped; the next prompt starts it again. */
  idleStopMs: number;
  clock: Clock;
  handlers: SessionAgentHandlers;
  /** The agent's background tasks changed: a command started or ended, or the agent stopped. */
  onTasksChanged(): void;
  /** The agent runs a turn: it is neither idle-stopped nor dropped when it exits (the turn tells). */
  busy(): boolean;
  /** Each line the agent writes to stderr, as it comes. */
  onStderrLine(line: string): void;
  /** The agent's start waits `waitMs` before it loads its session (null: the wait is over). */
  onLoadWait(waitMs: number | null): void;
}

/**
 * The agent process of one session, while it runs: started (signed in, its session loaded or
 * created, the user's selections applied again) when a turn or a config change needs it, the file
 * access and terminals it is allowed, and its stop when idle, exited, or the session stops.
 */
export class SessionAgent {
  private connection: AgentConnection | undefined;
  /** Aborts the agent's start (initialize, sign-in, load) when the session stops meanwhile. */
  private opening: AbortController | undefined;
  private loading = false;
  private waitingToLoad = false;
  /** The commands the current agent started (`terminal/*`); they end with it. */
  private terminals: Terminals | undefined;
  private fileAccess: FileAccess | undefined;
  private idleTimer: ClockTimer | undefined;
  private agentQuirks: AgentQuirks = {};
  /** The agent's start in progress, which every caller until then shares. */
  private starting: Promise<AgentConnection> | undefined;
  /** A gentle stop in progress: the next start waits for it. */
  private stopping: Promise<void> | undefined;
  /** One-off questions to the agent outside the conversation, and what they are told. */
  private readonly asides: AsideSessions;
  /** One-off questions being answered: the agent is not idle meanwhile. */
  private asking = 0;

  constructor(private readonly deps: SessionAgentDeps) {
    // While an agent starts, what it says is the user's session's (a new one's id is not known until its start ends).
    this.asides = new AsideSessions(() => (this.starting ? undefined : this.connection?.sessionId), deps.clock);
  }

  /** The running agent's connection, if one runs. */
  get current(): AgentConnection | undefined {
    return this.connection;
  }

  /** Where the running agent's stream departs from the protocol's meaning. */
  get quirks(): AgentQuirks {
    return this.agentQuirks;
  }

  /** A session/load runs: what the agent streams is replayed history. */
  get isLoading(): boolean {
    return this.loading;
  }

  /** The start waits before the agent loads its session: the agent was not asked anything yet. */
  get isWaitingToLoad(): boolean {
    return this.waitingToLoad;
  }

  /**
   * The running agent; started first when there is none (`opened` records what the start found). A
   * caller that comes while it starts (a config change during a turn's start) waits for that start.
   */
  ensure(session: StoredSession, launch: SessionLaunch, opened: (result: OpenedAgentSession) => void): Promise<AgentConnection> {
    if (this.connection?.agent.isRunning) return Promise.resolve(this.connection);
    this.starting ??= this.start(session, launch, opened).finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(session: StoredSession, launch: SessionLaunch, opened: (result: OpenedAgentSession) => void): Promise<AgentConnection> {
    // An agent still finishing its writes (stopped gently when idle) goes first: its successor loads what it wrote.
    await this.stopping;
    this.agentQuirks = launch.quirks;
    const files = new FileAccess([session.cwd]);
    this.fileAccess = files;
    this.terminals?.closeAll();
    const terminals = new Terminals({
      env: launch.env,
      cwd: session.cwd,
      checkCwd: (path) => files.resolveInside(path),
      onChange: () => this.deps.onTasksChanged(),
      children: launch.children,
    });
    this.terminals = terminals;
    const opening = new AbortController();
    this.opening = opening;
    let result: OpenedAgentSession;
    try {
      await this.waitToLoad(session, launch.quirks, opening.signal);
      result = await AgentConnection.open({
        launch: { ...launch, onStderrLine: (line) => this.deps.onStderrLine(line) },
        chooseAuthMethod: launch.chooseAuthMethod,
        mcpServers: launch.mcpServers,
        agentSessionId: session.agentSessionId,
        forkOf: session.forkOf ?? null,
        cwd: session.cwd,
        selections: { ...session.configSelections, ...session.unavailableConfigSelections },
        modelUnsureAfterLoad: launch.quirks.modelUnsureAfterLoad === true,
        onLoading: (loading) => (this.loading = loading),
        signal: opening.signal,
        logger: this.deps.logger,
        handlers: {
          // What a one-off session's agent says goes to it, never to the conversation.
          onUpdate: (notification) =>
            this.asides.isAside(notification.sessionId) ? this.asides.update(notification) : this.deps.handlers.onUpdate(notification),
          requestPermission: async (request, signal) =>
            this.asides.isAside(request.sessionId) ? this.asides.refusePermission(request) : this.deps.handlers.requestPermission(request, signal),
          elicit: async (request, signal) => (this.asides.scopes(request) ? { action: "decline" } : this.deps.handlers.elicit(request, signal)),
          refuseAction: (sessionId, what) => this.asides.refuseAction(sessionId, what),
          terminals,
          readTextFile: async (request) => this.logRefusal("read", request.path, () => files.read(request)),
          writeTextFile: async (request) => this.logRefusal("write", request.path, () => files.write(request)),
        },
      });
    } catch (error) {
      throw new AgentOpenError(error);
    } finally {
      if (this.opening === opening) this.opening = undefined;
      this.loading = false;
    }
    const { connection } = result;
    this.connection = connection;
    void connection.agent.exited.then(() => {
      if (this.connection !== connection || this.deps.busy()) return;
      this.stop();
      this.deps.onTasksChanged();
    });
    opened(result);
    return connection;
  }

  /**
   * For an agent that wipes a session loaded in the period it began in: waits, before the agent
   * starts, until the next period (a stop ends the wait).
   */
  private async waitToLoad(session: StoredSession, quirks: AgentQuirks, signal: AbortSignal): Promise<void> {
    const periodMs = quirks.loadWipesInStartPeriodMs;
    if (!periodMs || !session.agentSessionId || !session.agentSessionBeganAt) return;
    const untilMs = (Math.floor(Date.parse(session.agentSessionBeganAt) / periodMs) + 1) * periodMs;
    const waitMs = untilMs - this.deps.clock.now();
    if (!(waitMs > 0)) return;
    this.deps.logger.info("waiting before the agent loads its session, which it would wipe sooner", { sessionId: this.deps.sessionId, waitMs });
    this.waitingToLoad = true;
    this.deps.onLoadWait(waitMs);
    try {
      await sleepUnlessAborted(this.deps.clock, waitMs, signal, () => new Error("the session was stopped while its agent waited to start"));
    } finally {
      this.waitingToLoad = false;
      this.deps.onLoadWait(null);
    }
  }

  /**
   * Asks the running agent a one-off question in a session of its own (see AsideSessions); the agent
   * is not stopped as idle meanwhile, and the idle time starts again after it unless a turn runs.
   */
  async ask(connection: Promise<AgentConnection>, question: AsideQuestion): Promise<string> {
    this.asking++;
    this.holdIdleStop();
    try {
      return await this.asides.ask(
        connection.then((opened) => opened.agent),
        question,
      );
    } finally {
      this.asking--;
      if (!this.deps.busy()) this.scheduleIdleStop();
    }
  }

  /** A file a prompt attached may be read by the agent wherever it is. */
  grantRead(path: string): void {
    this.fileAccess?.grantRead(path);
  }

  /** Ends a start in progress (the session stopped, or its turn was cancelled). */
  abortOpening(): void {
    this.opening?.abort();
  }

  /**
   * Stops the agent and the commands it runs. `gently`: the agent may first finish its writes (its
   * session file, so that it can load the session again), for at most AGENT_STOP_GRACE_MS.
   */
  stop(gently = false): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    this.terminals?.closeAll();
    this.terminals = undefined;
    if (!connection) return Promise.resolve();
    if (!gently) {
      connection.stop();
      return Promise.resolve();
    }
    const stopping = connection.stopGently(AGENT_STOP_GRACE_MS).finally(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    this.stopping = stopping;
    return stopping;
  }

  /** Stops it for good: the session is stopped (gently, at shutdown) or deleted. */
  close(gently = false): Promise<void> {
    this.deps.clock.clearTimeout(this.idleTimer);
    this.abortOpening();
    return this.stop(gently);
  }

  /** A turn starts: the agent is not idle. */
  holdIdleStop(): void {
    this.deps.clock.clearTimeout(this.idleTimer);
  }

  /** A turn ended: the agent is stopped if no other starts within the idle time. */
  scheduleIdleStop(): void {
    this.deps.clock.clearTimeout(this.idleTimer);
    this.idleTimer = this.deps.clock.setTimeout(() => {
      if (this.deps.busy() || this.asking > 0) return;
      this.deps.logger.info("stopping an idle agent", { sessionId: this.deps.sessionId });
      void this.stop(true);
      this.deps.onTasksChanged();
    }, this.deps.idleStopMs);
    this.idleTimer.unref?.();
  }

  /** A tool call shows the terminal it runs in. */
  linkToolCall(terminalId: string, toolCallId: string): void {
    this.terminals?.linkToolCall(terminalId, toolCallId);
  }

  backgroundTasks(): BackgroundTask[] {
    return this.terminals?.tasks() ?? [];
  }

  /** A background task and what its command wrote so far. */
  taskOutput(terminalKey: string): { task: BackgroundTask } & TerminalOutput {
    const terminals = this.terminals;
    if (!terminals?.has(terminalKey)) throw new NotFoundError(`no background task ${terminalKey} in session ${this.deps.sessionId}`);
    return { task: terminals.task(terminalKey), ...terminals.output(terminalKey) };
  }

  /** Serves an agent's file request; a refusal is logged before the agent is told. */
  private logRefusal<T>(operation: string, path: string, serve: () => T): T {
    try {
      return serve();
    } catch (error) {
      this.deps.logger.warn("refused an agent's file request", { sessionId: this.deps.sessionId, operation, path, error: (error as Error).message });
      throw error;
    }
  }
}

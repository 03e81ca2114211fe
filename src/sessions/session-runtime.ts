import type * as acp from "@agentclientprotocol/sdk";
import type { Store } from "../store/database.ts";
import type { StoredSession } from "../store/session-repository.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { Logger } from "../logging/logger.ts";
import type { Attachment, BackgroundTask, ConfigOption, ConversationItem, Goal, PendingQuestion } from "../schemas/sessions.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { AgentLaunch } from "./acp/agent-process.ts";
import { AgentConnection } from "./agent-connection.ts";
import { AgentOpenError, crashOf, failureReason, TurnCancelled } from "./turn-failure.ts";
import { FileAccess } from "./acp/file-access.ts";
import { Terminals, type TerminalOutput } from "./acp/terminals.ts";
import { SessionRecords } from "./session-records.ts";
import {
  elicitationContent,
  elicitationQuestion,
  permissionOutcome,
  permissionQuestion,
  type QuestionAnswer,
} from "./question-mapping.ts";
import { applyUsage, configSelectionsOf, toConfigOptions } from "./acp-mapping.ts";
import { budgetSpentStatus } from "./goal-budget.ts";
import { TurnTokens } from "./turn-tokens.ts";
import { promptBlocks } from "./prompt-blocks.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import { terminalIdsOf } from "./transcript-mapping.ts";
import { ReplyStream } from "./reply-stream.ts";
import { SilenceWatch } from "./silence-watch.ts";
import { backoffMs } from "../store/storage-errors.ts";

export interface SessionRuntimeDeps {
  store: Store;
  records: SessionRecords;
  conversation: ConversationRepository;
  queue: PromptQueueRepository;
  transcript: TranscriptRepository;
  files: UploadedFiles;
  logger: Logger;
  /** How to start the session's agent: its command and environment (the harness and account). */
  launch: (session: StoredSession) => SessionLaunch;
  /** What holds new turns (the harness being updated, Atrium swapping its binary), if anything. */
  heldBy: (session: StoredSession) => string | undefined;
  /** Streamed text waits at most this long before it is written and published as one delta. */
  deltaFlushMs: number;
  /** An agent with no turn for this long is stopped; the next prompt starts it again. */
  idleStopMs: number;
  /** After a cancel, the agent has this long to end the turn itself; then it is stopped. */
  cancelGraceMs: number;
  /** A turn with no word from the agent for this long says so in the session's status. */
  silenceNoticeMs: number;
  /** A reply whose writes keep failing this long ends its turn in error (its text kept). */
  writeFailureLimitMs: number;
}

/** How a session's agent is started, and how it signs in. */
export interface SessionLaunch extends AgentLaunch {
  harnessName: string;
  loginInstruction: string | null;
  /** Which of the agent's `authenticate` methods the account's credentials fit. */
  chooseAuthMethod: (offered: acp.AuthMethod[]) => string | undefined;
}

interface Turn {
  promptId: string;
  itemId: string;
  cancelled: boolean;
  /**
   * Set once the prompt is sent: only then is what the agent streams this turn's reply (before, a
   * session/load replays history, which the stored conversation already holds).
   */
  live: boolean;
  /** Ends the turn without the agent (a cancel it did not honour in time). */
  abort: (reason: Error) => void;
  aborted: Promise<never>;
  escalation: ReturnType<typeof setTimeout> | undefined;
  /** Where what the agent streams this turn goes. */
  reply: ReplyStream;
  silence: SilenceWatch;
  /** Said in the status when the turn ends well (e.g. the agent could not load its history). */
  notice: string | null;
  /** Set when the turn must end in error whatever the agent does (its reply cannot be written). */
  failure: string | undefined;
  /** Its tokens so far, and what of them the goal was charged. */
  tokens: TurnTokens;
}

interface OpenQuestion {
  question: PendingQuestion;
  answer: (answers: Record<string, QuestionAnswer>) => void;
  withdraw: () => void;
}

/**
 * The live side of one session: its agent process, the turn in flight, streamed text on its way to
 * the store, and the question the agent waits on. The queue drains one prompt at a time.
 */
export class SessionRuntime {
  private connection: AgentConnection | undefined;
  /** Aborts the agent's start (initialize, sign-in, load) when the session stops meanwhile. */
  private opening: AbortController | undefined;
  /** A session/load runs: what the agent streams is replayed history. */
  private loading = false;
  /** The commands the current agent started (`terminal/*`); they end with it. */
  private terminals: Terminals | undefined;
  private fileAccess: FileAccess | undefined;
  private turn: Turn | undefined;
  private draining = false;
  /** Turns in a row that could not start, for the backoff before the next try. */
  private startFailures = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  private openQuestion: OpenQuestion | undefined;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionRuntimeDeps,
  ) {}

  get isTurnRunning(): boolean {
    return this.turn !== undefined;
  }

  /** What a goal of this session is doing now. */
  goalActivity(session: StoredSession): Goal["activity"] {
    if (!this.turn) return "idle";
    return isPlanMode(session.configOptions) ? "planning" : "working";
  }

  /** A goal set (or raised) during a turn counts from now on, not from the turn's start. */
  restartGoalCount(): void {
    this.turn?.tokens.restartCount();
  }

  /** Starts the next queued prompt when no turn runs (and nothing holds the queue). */
  kick(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    void this.drain()
      .then(() => (this.startFailures = 0))
      .catch((error: unknown) => {
        // The turn could not start (its first write failed: a locked database, a full disk); the
        // prompt is still queued, and the queue tries again with backoff.
        this.deps.logger.error("a session's next turn could not start; trying again", { sessionId: this.sessionId, error });
        clearTimeout(this.holdTimer);
        this.holdTimer = setTimeout(() => this.kick(), backoffMs(++this.startFailures, 10_000));
      })
      .finally(() => (this.draining = false));
  }

  /**
   * Cancels the turn in flight; a question it waits on is withdrawn. An agent that has not ended the
   * turn within the grace period is stopped and the turn ends without it (the next prompt starts it
   * again and loads the session).
   */
  async cancel(): Promise<void> {
    const turn = this.turn;
    if (!turn) throw new ConflictError("no turn is running");
    await this.stopTurn(turn);
  }

  /** Asks the agent to end the turn; one that does not within the grace period is stopped. */
  private async stopTurn(turn: Turn): Promise<void> {
    if (turn.cancelled) return;
    turn.cancelled = true;
    this.openQuestion?.withdraw();
    this.opening?.abort();
    const connection = this.connection;
    if (connection && turn.live) await connection.agent.cancel(connection.sessionId).catch(() => undefined);
    turn.escalation = setTimeout(() => {
      if (this.turn !== turn) return;
      this.deps.logger.warn("the agent did not end a cancelled turn in time; stopping it", { sessionId: this.sessionId, graceMs: this.deps.cancelGraceMs });
      this.stopAgent();
      turn.abort(new Error("the agent did not end the cancelled turn in time and was stopped"));
    }, this.deps.cancelGraceMs);
  }

  answer(questionId: string, answers: Record<string, QuestionAnswer>): void {
    const open = this.openQuestion;
    if (!open || open.question.questionId !== questionId) throw new NotFoundError(`no pending question ${questionId}`);
    open.answer(answers);
  }

  /** Withdraws a pending question (the agent gets "cancelled"); the turn goes on. */
  dismissQuestion(questionId: string): void {
    const open = this.openQuestion;
    if (!open || open.question.questionId !== questionId) throw new NotFoundError(`no pending question ${questionId}`);
    open.withdraw();
  }

  async setConfig(configId: string, value: string): Promise<ConfigOption[]> {
    const connection = await this.ensureAgent();
    const options = await connection.set(configId, value);
    this.recordConfig(options);
    return options;
  }

  /** Stops the agent and forgets the live state; a turn in flight ends as interrupted. */
  stop(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.holdTimer);
    this.turn?.silence.stop();
    this.turn?.reply.close();
    this.opening?.abort();
    this.openQuestion?.withdraw();
    this.stopAgent();
  }

  backgroundTasks(): BackgroundTask[] {
    return this.terminals?.tasks() ?? [];
  }

  /** A background task and what its command wrote so far. */
  taskOutput(terminalKey: string): { task: BackgroundTask } & TerminalOutput {
    const terminals = this.terminals;
    if (!terminals?.has(terminalKey)) throw new NotFoundError(`no background task ${terminalKey} in session ${this.sessionId}`);
    return { task: terminals.task(terminalKey), ...terminals.output(terminalKey) };
  }

  private stopAgent(): void {
    this.connection?.stop();
    this.connection = undefined;
    this.terminals?.closeAll();
    this.terminals = undefined;
  }

  private async drain(): Promise<void> {
    while (!this.closed) {
      const session = this.deps.records.get(this.sessionId);
      if (session.queuePaused || session.pendingPlanApproval) return;
      const next = this.deps.queue.list(this.sessionId)[0];
      if (!next) return;
      const heldBy = this.deps.heldBy(session);
      if (heldBy) {
        // Checked again shortly: the update ends on its own and then the queue goes on.
        this.holdTimer = setTimeout(() => this.kick(), 1000);
        return;
      }
      // A failed turn is shown on its reply and the session; the queue still goes on.
      await this.runTurn(next.id);
    }
  }

  private async runTurn(promptId: string): Promise<void> {
    clearTimeout(this.idleTimer);
    const now = this.deps.records.timestamp();
    const userItemId = newId("msg");
    const replyId = newId("msg");
    let promptText = "";
    let attachments: Attachment[] = [];
    let contextAtStart = 0;
    this.deps.records.update(this.sessionId, (session) => {
      const prompt = this.deps.queue.get(promptId);
      if (!prompt) throw new NotFoundError(`prompt ${promptId} is gone`);
      promptText = prompt.text;
      attachments = prompt.attachments;
      this.deps.queue.remove(promptId);
      const user: ConversationItem = {
        id: userItemId,
        role: "user",
        messageId: null,
        text: prompt.text,
        createdAt: now,
        isGenerating: false,
        attachments: prompt.attachments,
        stopReason: null,
      };
      const reply: ConversationItem = { ...user, id: replyId, role: "assistant", text: "", isGenerating: true, attachments: [] };
      this.deps.conversation.append(this.sessionId, user);
      this.deps.conversation.append(this.sessionId, reply, true);
      this.deps.records.emit(this.sessionId, "session.prompt.started", { promptId, itemId: userItemId });
      this.deps.records.emit(this.sessionId, "session.message.created", { item: user });
      this.deps.records.emit(this.sessionId, "session.message.created", { item: reply });
      if (session.titleSource === "default") {
        session.title = titleFrom(prompt.text);
        session.titleSource = "prompt";
      }
      session.sidebarState = "working";
      session.status = null;
      contextAtStart = session.usage.used;
    });
    let abort: (reason: Error) => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => (abort = reject));
    aborted.catch(() => undefined);
    const turn: Turn = {
      promptId,
      itemId: replyId,
      cancelled: false,
      live: false,
      abort,
      aborted,
      escalation: undefined,
      reply: new ReplyStream(this.sessionId, replyId, this.deps, (reason) => {
        turn.failure = reason;
        this.deps.logger.error("a turn ends: its reply cannot be written", { sessionId: this.sessionId, reason });
        void this.stopTurn(turn);
      }),
      silence: new SilenceWatch(this.deps.silenceNoticeMs, {
        paused: () => this.openQuestion !== undefined,
        onQuiet: (quietMs) => this.recordStatus(quietStatus(quietMs, this.connection?.agent.lastStderrLine())),
        onHeard: () => this.recordStatus(turn.notice),
      }),
      notice: null,
      failure: undefined,
      tokens: new TurnTokens(contextAtStart),
    };
    this.turn = turn;
    try {
      this.recordGoalActivity();
    } catch (error) {
      this.deps.logger.warn("the goal's activity could not be recorded", { sessionId: this.sessionId, error });
    }
    let stopReason: string;
    let failure: string | undefined;
    try {
      const connection = await outlasting(this.ensureAgent(), aborted);
      if (turn.cancelled) throw new TurnCancelled();
      const { blocks, files } = promptBlocks(promptText, attachments, connection.agent.capabilities.promptCapabilities ?? undefined, this.deps.files);
      for (const path of files) this.fileAccess?.grantRead(path);
      turn.live = true;
      const response = await outlasting(connection.agent.prompt({ sessionId: connection.sessionId, prompt: blocks }), aborted);
      stopReason = turn.cancelled ? "cancelled" : response.stopReason;
      this.recordTurnUsage(response);
    } catch (error) {
      stopReason = turn.cancelled ? "cancelled" : "error";
      if (!turn.cancelled) {
        const crash = await crashOf(error, this.connection?.agent);
        failure = crash ?? failureReason(error, this.deps.launch(this.deps.records.get(this.sessionId)));
        if (crash) this.stopAgent();
        this.deps.logger.warn("a turn failed", { sessionId: this.sessionId, error: failure, prompt: promptText.length });
      }
    } finally {
      clearTimeout(turn.escalation);
      turn.silence.stop();
    }
    if (turn.failure) {
      stopReason = "error";
      failure = turn.failure;
    }
    await this.finishTurn(turn, stopReason, failure);
  }

  /**
   * Writes the end of the turn: the rest of the reply, its stop reason, the session's state. A write
   * that fails (locked database, full disk) is tried again with backoff until it works: the turn is
   * over only once that is stored. A stopped runtime (shutdown, deletion) leaves the reply generating,
   * and a restart marks it interrupted.
   */
  private async finishTurn(turn: Turn, stopReason: string, failure: string | undefined): Promise<void> {
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        if (turn.reply.flush()) {
          this.recordTurnEnd(turn, stopReason, failure);
          break;
        }
      } catch (error) {
        if (attempt === 0) this.deps.logger.warn("the end of a turn could not be written; trying again", { sessionId: this.sessionId, error });
      }
      await Bun.sleep(backoffMs(attempt));
    }
    if (this.closed) return;
    this.turn = undefined;
    this.scheduleIdleStop();
  }

  private recordTurnEnd(turn: Turn, stopReason: string, failure: string | undefined): void {
    this.deps.records.update(this.sessionId, (session) => {
      this.deps.conversation.finish(turn.itemId, stopReason);
      this.deps.records.emitCompleted(this.sessionId, this.deps.conversation.get(turn.itemId)!);
      session.pendingQuestion = null;
      session.sidebarState = failure ? "error" : session.pendingPlanApproval ? "waiting" : "idle";
      session.status = failure ?? turn.notice;
      if (session.goal) {
        session.goal.activity = "idle";
        this.chargeGoal(session);
        this.deps.records.emit(this.sessionId, "session.goal", { goal: session.goal });
        if (session.queuePaused && session.goal.status === "budget_exhausted") session.status = failure ?? budgetSpentStatus(session.goal);
      }
      SessionRecords.attention(session, failure !== undefined);
    });
  }





  /** Sets the session's status from a timer, where nothing above would catch a failed write. */
  private recordStatus(status: string | null): void {
    try {
      this.deps.records.update(this.sessionId, (session) => void (session.status = status));
    } catch (error) {
      this.deps.logger.error("recording the session's status failed", { sessionId: this.sessionId, error });
    }
  }

  private scheduleIdleStop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.turn || this.closed) return;
      this.deps.logger.info("stopping an idle agent", { sessionId: this.sessionId });
      this.stopAgent();
      this.publishTasks();
    }, this.deps.idleStopMs);
    this.idleTimer.unref?.();
  }

  /**
   * The running agent, started (signed in, its session loaded or created, the user's selections
   * applied again) when there is none.
   */
  private async ensureAgent(): Promise<AgentConnection> {
    if (this.connection?.agent.isRunning) return this.connection;
    const session = this.deps.records.get(this.sessionId);
    const launch = this.deps.launch(session);
    const files = new FileAccess([session.cwd]);
    this.fileAccess = files;
    this.terminals?.closeAll();
    const terminals = new Terminals({
      env: launch.env,
      cwd: session.cwd,
      checkCwd: (path) => files.resolveInside(path),
      onChange: () => this.publishTasks(),
      children: launch.children,
    });
    this.terminals = terminals;
    const opening = new AbortController();
    this.opening = opening;
    let opened: Awaited<ReturnType<typeof AgentConnection.open>>;
    try {
      opened = await AgentConnection.open({
        launch,
        chooseAuthMethod: launch.chooseAuthMethod,
        agentSessionId: session.agentSessionId,
        cwd: session.cwd,
        selections: { ...session.configSelections, ...session.unavailableConfigSelections },
        onLoading: (loading) => (this.loading = loading),
        signal: opening.signal,
        logger: this.deps.logger,
        handlers: {
          terminals,
          onUpdate: (notification) => {
            try {
              this.onUpdate(notification);
            } catch (error) {
              // A plan, usage or config change that could not be written; the next one carries the state.
              this.deps.logger.warn("an update from the agent could not be recorded", { sessionId: this.sessionId, kind: notification.update.sessionUpdate, error });
            }
          },
          requestPermission: (request) =>
            this.ask(permissionQuestion(newId("q"), request), (q, answers) => permissionOutcome(q, answers), { outcome: { outcome: "cancelled" } }),
          elicit: async (request) => {
            const question = elicitationQuestion(newId("q"), request);
            if (!question) return { action: "decline" };
            return this.ask(question, (q, answers) => elicitationContent(request, q, answers), { action: "cancel" });
          },
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
    const { connection, refused, notice } = opened;
    this.connection = connection;
    void connection.agent.exited.then(() => {
      if (this.connection !== connection || this.turn) return;
      this.stopAgent();
      this.publishTasks();
    });
    if (this.turn) this.turn.notice = notice;
    this.deps.records.update(this.sessionId, (stored) => {
      stored.agentSessionId = connection.sessionId;
      if (connection.configOptions) this.applyConfig(stored, connection.configOptions);
      Object.assign(stored.unavailableConfigSelections, refused);
      if (notice) stored.status = notice;
    });
    return connection;
  }

  /** Serves an agent's file request; a refusal is logged before the agent is told. */
  private logRefusal<T>(operation: string, path: string, serve: () => T): T {
    try {
      return serve();
    } catch (error) {
      this.deps.logger.warn("refused an agent's file request", { sessionId: this.sessionId, operation, path, error: (error as Error).message });
      throw error;
    }
  }

  /** Shows the question, waits for the answer (or its withdrawal), and clears it again. */
  private ask<T>(question: PendingQuestion, toResponse: (question: PendingQuestion, answers: Record<string, QuestionAnswer>) => T, withdrawn: T): Promise<T> {
    if (this.openQuestion) this.openQuestion.withdraw();
    this.turn?.reply.flush();
    this.deps.records.update(this.sessionId, (session) => {
      session.pendingQuestion = question;
      session.sidebarState = "waiting";
      SessionRecords.attention(session);
      this.deps.records.emit(this.sessionId, "session.question", { question });
    });
    return new Promise<T>((resolve) => {
      const settle = (value: T) => {
        if (this.openQuestion?.question.questionId !== question.questionId) return;
        this.openQuestion = undefined;
        resolve(value);
        if (this.closed) return;
        this.deps.records.update(this.sessionId, (session) => {
          session.pendingQuestion = null;
          if (session.sidebarState === "waiting" && !session.pendingPlanApproval) session.sidebarState = this.turn ? "working" : "idle";
          this.deps.records.emit(this.sessionId, "session.question", { question: null });
        });
      };
      this.openQuestion = {
        question,
        // Validates first: a bad answer is a 400 and the question stays open.
        answer: (answers) => settle(toResponse(question, answers)),
        withdraw: () => settle(withdrawn),
      };
    });
  }

  private onUpdate(notification: acp.SessionNotification): void {
    if (this.closed) return;
    const update = notification.update;
    // What the agent streams outside a live turn (the history a session/load replays) is already stored.
    const turn = this.turn?.live && !this.loading ? this.turn : undefined;
    turn?.silence.heard();
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (turn && update.content.type === "text") turn.reply.appendText(update.content.text);
        return;
      case "agent_thought_chunk":
        if (turn && update.content.type === "text") turn.reply.appendThought(update.content.text);
        return;
      case "tool_call":
      case "tool_call_update":
        if (!turn) return;
        for (const terminalId of terminalIdsOf(update)) this.terminals?.linkToolCall(terminalId, update.toolCallId);
        turn.reply.recordToolCall(update);
        return;
      case "plan":
        if (!turn) return;
        this.turn?.reply.flush();
        this.deps.records.update(this.sessionId, (session) => {
          session.plan = { entries: update.entries.map(({ content, priority, status }) => ({ content, priority, status })) };
          this.deps.records.emit(this.sessionId, "session.plan", { plan: session.plan });
        });
        return;
      case "usage_update": {
        this.turn?.reply.flush();
        let spent = false;
        this.deps.records.update(this.sessionId, (session) => {
          session.usage = applyUsage(session.usage, update);
          this.deps.records.emit(this.sessionId, "session.usage", { usage: session.usage });
          turn?.tokens.noteContext(update.used);
          if (session.goal?.status !== "active") return;
          spent = this.chargeGoal(session);
          this.deps.records.emit(this.sessionId, "session.goal", { goal: session.goal });
        });
        // The budget is spent: the turn stops here (its reply so far is kept).
        if (spent) void this.cancel().catch(() => undefined);
        return;
      }
      case "session_info_update":
        // A title the user gave stays; only then is there nothing to record.
        if (!update.title || this.deps.records.get(this.sessionId).titleSource === "given") return;
        this.turn?.reply.flush();
        this.deps.records.update(this.sessionId, (session) => {
          session.title = update.title!;
          session.titleSource = "agent";
        });
        return;
      case "config_option_update": {
        this.turn?.reply.flush();
        const options = toConfigOptions(update.configOptions);
        this.connection?.noteOptions(options);
        this.recordConfig(options);
        return;
      }
      case "current_mode_update":
        this.turn?.reply.flush();
        this.recordConfig(this.connection?.noteModeChange(update.currentModeId) ?? this.deps.records.get(this.sessionId).configOptions);
        return;
      default:
        // The user's own message echoed back, available commands: nothing the interface shows.
        return;
    }
  }

  private recordConfig(options: ConfigOption[]): void {
    this.deps.records.update(this.sessionId, (session) => this.applyConfig(session, options));
  }

  /** Stores the agent's options and current choices; leaving plan mode asks for plan approval. */
  private applyConfig(session: StoredSession, options: ConfigOption[]): void {
    const wasPlanning = isPlanMode(session.configOptions);
    session.configOptions = options;
    session.configSelections = configSelectionsOf(options);
    for (const configId of Object.keys(session.unavailableConfigSelections)) {
      if (session.configSelections[configId] === session.unavailableConfigSelections[configId]) delete session.unavailableConfigSelections[configId];
    }
    if (wasPlanning && !isPlanMode(options) && this.turn) {
      session.pendingPlanApproval = true;
      session.sidebarState = "waiting";
      SessionRecords.attention(session);
    }
    this.deps.records.emit(this.sessionId, "session.config", { configOptions: options, configSelections: session.configSelections });
  }

  private recordTurnUsage(response: acp.PromptResponse): void {
    const usage = (response as { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cachedReadTokens?: number; thoughtTokens?: number } }).usage;
    if (!usage) return;
    this.turn?.tokens.noteReported(usage.totalTokens ?? 0);
    this.turn?.reply.flush();
    this.deps.records.update(this.sessionId, (session) => {
      session.usage = {
        ...session.usage,
        inputTokens: session.usage.inputTokens + (usage.inputTokens ?? 0),
        cachedInputTokens: session.usage.cachedInputTokens + (usage.cachedReadTokens ?? 0),
        outputTokens: session.usage.outputTokens + (usage.outputTokens ?? 0),
        reasoningOutputTokens: session.usage.reasoningOutputTokens + (usage.thoughtTokens ?? 0),
        totalTokens: session.usage.totalTokens + (usage.totalTokens ?? 0),
      };
      this.deps.records.emit(this.sessionId, "session.usage", { usage: session.usage });
    });
  }

  /**
   * Counts the turn's tokens and time since the last count against an active goal; true when that
   * spent the budget, which pauses the queue.
   */
  private chargeGoal(session: StoredSession): boolean {
    const turn = this.turn;
    const goal = session.goal;
    if (!turn || !goal || goal.status !== "active") return false;
    const spent = turn.tokens.charge(goal, this.deps.records.timestamp());
    if (spent) {
      session.queuePaused = true;
      session.status = budgetSpentStatus(goal);
    }
    return spent;
  }

  private recordGoalActivity(): void {
    const session = this.deps.records.get(this.sessionId);
    if (!session.goal || session.goal.activity === this.goalActivity(session)) return;
    this.deps.records.update(this.sessionId, (stored) => {
      stored.goal!.activity = this.goalActivity(stored);
      this.deps.records.emit(this.sessionId, "session.goal", { goal: stored.goal });
    });
  }

  /** Called from timers and process exits, where nothing above would catch a failed write. */
  private publishTasks(): void {
    if (this.closed) return;
    const backgroundTasks = this.backgroundTasks();
    try {
      this.deps.store.transaction(() => this.deps.records.emit(this.sessionId, "session.tasks", { backgroundTasks }));
    } catch (error) {
      this.deps.logger.warn("the session's background tasks could not be published", { sessionId: this.sessionId, error });
    }
  }
}

/**
 * The work's outcome, unless the turn is aborted first; the work may then still fail later (the agent
 * was stopped under it), which is expected and not an unhandled rejection.
 */
function outlasting<T>(work: Promise<T>, aborted: Promise<never>): Promise<T> {
  work.catch(() => undefined);
  return Promise.race([work, aborted]);
}

/** What the status says while the agent is quiet: for how long, and what it last logged. */
function quietStatus(quietMs: number, lastLogged: string | undefined): string {
  return `no word from the agent for ${Math.round(quietMs / 1000)} s${lastLogged ? `; it last logged: ${lastLogged.slice(0, 300)}` : ""}`;
}

function isPlanMode(options: ConfigOption[]): boolean {
  return options.some((option) => option.category === "mode" && /plan/i.test(option.currentValue));
}

function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}…` : line || "New session";
}

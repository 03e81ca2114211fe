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
import { AgentProcess, type AgentLaunch } from "./acp/agent-process.ts";
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
import { budgetSpentStatus, chargeGoal } from "./goal-budget.ts";
import { promptBlocks } from "./prompt-blocks.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import { mergeToolCall, terminalIdsOf, thoughtKey, toolCallKey, type ToolCallDetails } from "./transcript-mapping.ts";

export interface SessionRuntimeDeps {
  store: Store;
  records: SessionRecords;
  conversation: ConversationRepository;
  queue: PromptQueueRepository;
  transcript: TranscriptRepository;
  files: UploadedFiles;
  logger: Logger;
  /** How to start the session's agent: its command and environment (the harness and account). */
  launch: (session: StoredSession) => AgentLaunch & { harnessName: string; loginInstruction: string | null };
  /** What holds new turns (the harness being updated, Atrium swapping its binary), if anything. */
  heldBy: (session: StoredSession) => string | undefined;
  /** Streamed text waits at most this long before it is written and published as one delta. */
  deltaFlushMs: number;
  /** An agent with no turn for this long is stopped; the next prompt starts it again. */
  idleStopMs: number;
}

interface Turn {
  promptId: string;
  itemId: string;
  cancelled: boolean;
  /** Context tokens in use when the turn started: their growth estimates its tokens until it reports them. */
  contextAtStart: number;
  /** The turn's tokens so far (the estimate, then the count the agent reports at its end). */
  tokens: number;
  /** What of `tokens`, and the time up to when, has been counted against the goal. */
  goalTokens: number;
  goalClockMs: number;
  /** How many thoughts the reply has had, and the key of the one streaming now. */
  thoughts: number;
  openThought: string | undefined;
}

interface OpenQuestion {
  question: PendingQuestion;
  answer: (answers: Record<string, QuestionAnswer>) => void;
  withdraw: () => void;
}

/** ACP's error code for "authentication required". */
const ACP_AUTH_REQUIRED = -32000;

/** Past this much buffered text, a delta is written at once rather than on the timer. */
const DELTA_FLUSH_BYTES = 64 * 1024;

/**
 * The live side of one session: its agent process, the turn in flight, streamed text on its way to
 * the store, and the question the agent waits on. The queue drains one prompt at a time.
 */
export class SessionRuntime {
  private agent: AgentProcess | undefined;
  /** The commands the current agent started (`terminal/*`); they end with it. */
  private terminals: Terminals | undefined;
  private fileAccess: FileAccess | undefined;
  private agentSessionId: string | undefined;
  private turn: Turn | undefined;
  private draining = false;
  private pendingText = "";
  private pendingThought = "";
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
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
    if (!this.turn) return;
    this.turn.goalTokens = this.turn.tokens;
    this.turn.goalClockMs = Date.now();
  }

  /** Starts the next queued prompt when no turn runs (and nothing holds the queue). */
  kick(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    void this.drain()
      .catch((error: unknown) => this.deps.logger.error("a session's queue stopped on an unexpected error", { sessionId: this.sessionId, error }))
      .finally(() => (this.draining = false));
  }

  /** Cancels the turn in flight; a question it waits on is withdrawn. */
  async cancel(): Promise<void> {
    const turn = this.turn;
    if (!turn) throw new ConflictError("no turn is running");
    turn.cancelled = true;
    this.openQuestion?.withdraw();
    await this.agent?.cancel(this.agentSessionId ?? "").catch(() => undefined);
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
    const agent = await this.ensureAgent();
    const answer = await agent.setConfigOption({ sessionId: this.agentSessionId!, configId, value });
    const options = toConfigOptions(answer.configOptions);
    this.recordConfig(options);
    return options;
  }

  /** Stops the agent and forgets the live state; a turn in flight ends as interrupted. */
  stop(): void {
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.holdTimer);
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
    this.agent?.stop();
    this.agent = undefined;
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
      try {
        await this.runTurn(next.id);
      } catch (error) {
        if (error instanceof TurnFailed) return;
        throw error;
      }
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
      this.deps.conversation.append(this.sessionId, reply);
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
    this.turn = { promptId, itemId: replyId, cancelled: false, contextAtStart, tokens: 0, goalTokens: 0, goalClockMs: Date.now(), thoughts: 0, openThought: undefined };
    this.recordGoalActivity();
    let stopReason: string;
    let failure: string | undefined;
    try {
      const agent = await this.ensureAgent();
      const { blocks, files } = promptBlocks(promptText, attachments, agent.capabilities.promptCapabilities ?? undefined, this.deps.files);
      for (const path of files) this.fileAccess?.grantRead(path);
      const response = await agent.prompt({ sessionId: this.agentSessionId!, prompt: blocks });
      stopReason = this.turn.cancelled ? "cancelled" : response.stopReason;
      this.recordTurnUsage(response);
    } catch (error) {
      const agent = this.agent;
      // The connection closes a moment before the exit is seen; the exit tells a crash apart.
      const crashed = agent !== undefined && (await Promise.race([agent.exited.then(() => true), Bun.sleep(500).then(() => false)]));
      stopReason = this.turn.cancelled ? "cancelled" : "error";
      failure = this.turn.cancelled ? undefined : crashed ? this.crashReason(agent) : this.failureReason(error);
      if (crashed) this.stopAgent();
      this.deps.logger.warn("a turn failed", { sessionId: this.sessionId, error: failure ?? (error as Error).message, prompt: promptText.length });
    }
    // Stopped (shutdown, deletion): the reply stays generating, and a restart marks it interrupted.
    if (this.closed) return;
    this.flush();
    const turn = this.turn;
    this.deps.records.update(this.sessionId, (session) => {
      this.deps.conversation.finish(turn.itemId, stopReason);
      this.deps.records.emit(this.sessionId, "session.message.completed", { item: this.deps.conversation.get(turn.itemId)! });
      session.pendingQuestion = null;
      session.sidebarState = failure ? "error" : session.pendingPlanApproval ? "waiting" : "idle";
      session.status = failure ?? null;
      if (session.goal) {
        session.goal.activity = "idle";
        this.chargeGoal(session);
        this.deps.records.emit(this.sessionId, "session.goal", { goal: session.goal });
        if (session.queuePaused && session.goal.status === "budget_exhausted") session.status = failure ?? budgetSpentStatus(session.goal);
      }
      SessionRecords.attention(session, failure !== undefined);
    });
    this.turn = undefined;
    this.scheduleIdleStop();
    if (failure) throw new TurnFailed();
  }

  /** What a failed prompt tells the user; an agent that wants a sign-in says how to do it. */
  private failureReason(error: unknown): string {
    const message = (error as Error).message;
    if ((error as { code?: unknown }).code !== ACP_AUTH_REQUIRED) return message;
    const launch = this.deps.launch(this.deps.records.get(this.sessionId));
    return `${launch.harnessName} needs a sign-in (${message})${launch.loginInstruction ? `; to sign in, ${launch.loginInstruction}` : ""}`;
  }

  private crashReason(agent: AgentProcess): string {
    const said = agent.lastStderrLine();
    return `the agent stopped unexpectedly${said ? `: ${said}` : ""}`;
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

  /** The running agent, started (and its session created or loaded) when there is none. */
  private async ensureAgent(): Promise<AgentProcess> {
    if (this.agent?.isRunning) return this.agent;
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
    });
    this.terminals = terminals;
    const agent = await AgentProcess.start(launch, {
      terminals,
      onUpdate: (notification) => this.onUpdate(notification),
      requestPermission: (request) => this.ask(permissionQuestion(newId("q"), request), (q, answers) => permissionOutcome(q, answers), {
        outcome: { outcome: "cancelled" },
      }),
      elicit: async (request) => {
        const question = elicitationQuestion(newId("q"), request);
        if (!question) return { action: "decline" };
        return this.ask(question, (q, answers) => elicitationContent(request, q, answers), { action: "cancel" });
      },
      readTextFile: async (request) => this.guarded("read", request.path, () => files.read(request)),
      writeTextFile: async (request) => this.guarded("write", request.path, () => files.write(request)),
    });
    let agentSessionId: string;
    let configOptions: acp.SessionConfigOption[] | null | undefined;
    try {
      if (session.agentSessionId && agent.capabilities.loadSession) {
        await agent.loadSession({ sessionId: session.agentSessionId, cwd: session.cwd, mcpServers: [] });
        agentSessionId = session.agentSessionId;
      } else {
        const created = await agent.newSession({ cwd: session.cwd, mcpServers: [] });
        agentSessionId = created.sessionId;
        configOptions = created.configOptions;
      }
    } catch (error) {
      agent.stop();
      throw new Error(`the agent could not open the session: ${(error as Error).message}`);
    }
    this.agent = agent;
    this.agentSessionId = agentSessionId;
    void agent.exited.then(() => {
      if (this.agent !== agent || this.turn) return;
      this.stopAgent();
      this.publishTasks();
    });
    this.deps.records.update(this.sessionId, (stored) => {
      stored.agentSessionId = agentSessionId;
      if (configOptions) this.applyConfig(stored, toConfigOptions(configOptions));
    });
    await this.reapplySelections(agent, agentSessionId);
    return agent;
  }

  /** Choices made before the agent ran (or on an earlier process) are set on the new one. */
  private async reapplySelections(agent: AgentProcess, agentSessionId: string): Promise<void> {
    const session = this.deps.records.get(this.sessionId);
    const wanted = { ...session.configSelections, ...session.unavailableConfigSelections };
    const current = Object.fromEntries(session.configOptions.map((option) => [option.id, option.currentValue]));
    for (const [configId, value] of Object.entries(wanted)) {
      if (current[configId] === value || !(configId in current)) continue;
      try {
        const answer = await agent.setConfigOption({ sessionId: agentSessionId, configId, value });
        this.recordConfig(toConfigOptions(answer.configOptions));
      } catch (error) {
        this.deps.logger.info("the agent did not accept a config selection", { sessionId: this.sessionId, configId, error });
        this.deps.records.update(this.sessionId, (stored) => {
          stored.unavailableConfigSelections[configId] = value;
        });
      }
    }
  }

  private guarded<T>(operation: string, path: string, serve: () => T): T {
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
    this.flush();
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
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") this.appendText(update.content.text);
        return;
      case "agent_thought_chunk":
        if (update.content.type === "text") this.appendThought(update.content.text);
        return;
      case "tool_call":
      case "tool_call_update":
        this.recordToolCall(update);
        return;
      case "plan":
        this.flush();
        this.deps.records.update(this.sessionId, (session) => {
          session.plan = { entries: update.entries.map(({ content, priority, status }) => ({ content, priority, status })) };
          this.deps.records.emit(this.sessionId, "session.plan", { plan: session.plan });
        });
        return;
      case "usage_update": {
        this.flush();
        let spent = false;
        this.deps.records.update(this.sessionId, (session) => {
          session.usage = applyUsage(session.usage, update);
          this.deps.records.emit(this.sessionId, "session.usage", { usage: session.usage });
          if (this.turn) this.turn.tokens = Math.max(this.turn.tokens, update.used - this.turn.contextAtStart);
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
        this.flush();
        this.deps.records.update(this.sessionId, (session) => {
          session.title = update.title!;
          session.titleSource = "agent";
        });
        return;
      case "config_option_update":
        this.flush();
        this.recordConfig(toConfigOptions(update.configOptions));
        return;
      case "current_mode_update":
        this.flush();
        this.recordModeChange(update.currentModeId);
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

  private recordModeChange(modeId: string): void {
    const session = this.deps.records.get(this.sessionId);
    const options = session.configOptions.map((option) => (option.category === "mode" ? { ...option, currentValue: modeId } : option));
    this.recordConfig(options);
  }

  private recordTurnUsage(response: acp.PromptResponse): void {
    const usage = (response as { usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cachedReadTokens?: number; thoughtTokens?: number } }).usage;
    if (!usage) return;
    if (this.turn) this.turn.tokens = Math.max(this.turn.tokens, usage.totalTokens ?? 0);
    this.flush();
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
    const nowMs = Date.now();
    const spent = chargeGoal(goal, turn.tokens - turn.goalTokens, (nowMs - turn.goalClockMs) / 1000, this.deps.records.timestamp());
    turn.goalTokens = Math.max(turn.goalTokens, turn.tokens);
    turn.goalClockMs = nowMs;
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

  private publishTasks(): void {
    if (this.closed) return;
    const backgroundTasks = this.backgroundTasks();
    this.deps.store.transaction(() => this.deps.records.emit(this.sessionId, "session.tasks", { backgroundTasks }));
  }

  private appendText(text: string): void {
    const turn = this.turn;
    if (!turn || text.length === 0) return;
    // The reply goes on after a thought: that thought is complete, and a later one is a new entry.
    if (turn.openThought) {
      this.flush();
      turn.openThought = undefined;
    }
    this.pendingText += text;
    this.scheduleFlush();
  }

  private appendThought(text: string): void {
    const turn = this.turn;
    if (!turn || text.length === 0) return;
    turn.openThought ??= thoughtKey(++turn.thoughts);
    this.pendingThought += text;
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.pendingText.length + this.pendingThought.length >= DELTA_FLUSH_BYTES) return this.flush();
    this.flushTimer ??= setTimeout(() => this.flush(), this.deps.deltaFlushMs);
  }

  /** A tool call or its update, merged into the reply's details (it also ends a streaming thought). */
  private recordToolCall(update: acp.ToolCall | acp.ToolCallUpdate): void {
    const turn = this.turn;
    if (!turn) return;
    this.flush();
    turn.openThought = undefined;
    const key = toolCallKey(update.toolCallId);
    for (const terminalId of terminalIdsOf(update)) this.terminals?.linkToolCall(terminalId, update.toolCallId);
    this.deps.store.transaction(() => {
      const known = this.deps.transcript.get(turn.itemId, key)?.payload as ToolCallDetails | undefined;
      const at = this.deps.transcript.put(this.sessionId, turn.itemId, key, mergeToolCall(known, update));
      this.deps.records.emit(this.sessionId, "session.transcript", { itemId: turn.itemId, key, ...at });
    });
  }

  /**
   * Writes buffered reply text (published as one delta) and thought text (one transcript change);
   * runs before any other event of the session, so events keep the agent's order.
   */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const text = this.pendingText;
    const thought = this.pendingThought;
    const turn = this.turn;
    if ((text.length === 0 && thought.length === 0) || !turn || this.closed) return;
    this.pendingText = "";
    this.pendingThought = "";
    this.deps.store.transaction(() => {
      if (text.length > 0) {
        this.deps.conversation.appendText(turn.itemId, text);
        this.deps.records.emit(this.sessionId, "session.message.delta", { itemId: turn.itemId, text });
      }
      if (thought.length > 0 && turn.openThought) {
        const key = turn.openThought;
        const at =
          this.deps.transcript.appendText(turn.itemId, key, "text", thought) ??
          this.deps.transcript.put(this.sessionId, turn.itemId, key, { type: "thought", text: thought });
        this.deps.records.emit(this.sessionId, "session.transcript", { itemId: turn.itemId, key, ...at });
      }
    });
  }
}

/** A turn ended in an error; the queue stops until the user sends another prompt. */
export class TurnFailed extends Error {}

function isPlanMode(options: ConfigOption[]): boolean {
  return options.some((option) => option.category === "mode" && /plan/i.test(option.currentValue));
}

function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}…` : line || "New session";
}

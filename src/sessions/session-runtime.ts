import type { Store } from "../store/database.ts";
import type { StoredSession } from "../store/session-repository.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { Logger } from "../logging/logger.ts";
import type { BackgroundTask, ConfigOption, Goal } from "../schemas/sessions.ts";
import { ConflictError } from "../errors.ts";
import type { AgentConnection } from "./agent-connection.ts";
import { crashOf, failureReason, outlasting, TurnCancelled } from "./turn-failure.ts";
import type { TerminalOutput } from "./acp/terminals.ts";
import { SessionAgent, type SessionLaunch } from "./session-agent.ts";
import { SessionQuestions } from "./session-questions.ts";
import { SessionRecords } from "./session-records.ts";
import { takePrompt, type TurnPrompt } from "./turn-start.ts";
import type { QuestionAnswer } from "./question-mapping.ts";
import { isPlanMode } from "./acp-mapping.ts";
import { AgentUpdates } from "./agent-updates.ts";
import { budgetSpentStatus } from "./goal-budget.ts";
import { TurnTokens } from "./turn-tokens.ts";
import { promptBlocks } from "./prompt-blocks.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import { ReplyStream } from "./reply-stream.ts";
import { SilenceWatch } from "./silence-watch.ts";
import { TurnNotices } from "./agent-notices.ts";
import type { Turn } from "./turn.ts";
import { backoffMs } from "../store/storage-errors.ts";
import type { Clock, ClockTimer } from "../clock.ts";
import type { SessionTimings } from "./session-timings.ts";
import { SessionHandoff } from "./session-handoff.ts";

export interface SessionRuntimeDeps extends Omit<SessionTimings, "initializeTimeoutMs"> {
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
  /** Times the idle stop and the held queue's next look. */
  clock: Clock;
}

/** How a turn ended: the agent's stop reason (or cancelled, or error), and why when it failed. */
interface TurnEnding {
  stopReason: string;
  failure?: string;
}

/** How soon a queue held by an update looks again (the update ends on its own). */
const HOLD_RECHECK_MS = 1000;

export class SessionRuntime {
  private readonly agent: SessionAgent;
  private readonly questions: SessionQuestions;
  private readonly updates: AgentUpdates;
  private readonly handoff: SessionHandoff;
  private turn: Turn | undefined;
  private draining = false;
  /** Turns in a row that could not start, for the backoff before the next try. */
  private startFailures = 0;
  private holdTimer: ClockTimer | undefined;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionRuntimeDeps,
  ) {
    this.handoff = new SessionHandoff(deps, sessionId);
    this.agent = new SessionAgent({
      sessionId,
      logger: deps.logger,
      idleStopMs: deps.idleStopMs,
      clock: deps.clock,
      busy: () => this.turn !== undefined || this.closed,
      onTasksChanged: () => this.publishTasks(),
      // Lines logged outside a live turn (start-up chatter, replayed history) say nothing about it.
      onStderrLine: (line) => {
        if (this.turn?.live) this.turn.notices.logged(line);
      },
      onLoadWait: (waitMs) => this.turn?.notices.waitingToLoad(waitMs),
      handlers: {
        onUpdate: (notification) => {
          try {
            this.updates.record(notification);
          } catch (error) {
            // A plan, usage or config change that could not be written; the next one carries the state.
            deps.logger.warn("an update from the agent could not be recorded", { sessionId, kind: notification.update.sessionUpdate, error });
          }
        },
        requestPermission: (request) => this.questions.askPermission(request, this.turn?.reply),
        elicit: (request) => this.questions.askForm(request),
      },
    });
    this.updates = new AgentUpdates({
      sessionId,
      records: deps.records,
      agent: this.agent,
      turn: () => this.turn,
      closed: () => this.closed,
      chargeGoal: (session) => this.chargeGoal(session),
      budgetSpent: () => void this.cancel().catch(() => undefined),
      notice: (text) => this.turn?.notices.selfNotice(text),
    });
    this.questions = new SessionQuestions({
      sessionId,
      records: deps.records,
      beforeAsking: () => this.turn?.reply.flush(),
      turnRunning: () => this.turn !== undefined,
      closed: () => this.closed,
    });
  }

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
  startNextPrompt(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    void this.drain()
      .then(() => (this.startFailures = 0))
      .catch((error: unknown) => {
        // The turn could not start (its first write failed: a locked database, a full disk); the
        // prompt is still queued, and the queue tries again with backoff.
        this.deps.logger.error("a session's next turn could not start; trying again", { sessionId: this.sessionId, error });
        this.deps.clock.clearTimeout(this.holdTimer);
        this.holdTimer = this.deps.clock.setTimeout(() => this.startNextPrompt(), backoffMs(++this.startFailures, 10_000));
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
    this.questions.withdraw();
    this.agent.abortOpening();
    const connection = this.agent.current;
    if (connection && turn.live) await connection.agent.cancel(connection.sessionId).catch(() => undefined);
    turn.escalation = setTimeout(() => {
      if (this.turn !== turn) return;
      this.deps.logger.warn("the agent did not end a cancelled turn in time; stopping it", { sessionId: this.sessionId, graceMs: this.deps.cancelGraceMs });
      void this.agent.stop();
      turn.abort(new Error("the agent did not end the cancelled turn in time and was stopped"));
    }, this.deps.cancelGraceMs);
  }

  /**
   * Asks the agent a one-off question outside the conversation (starting it if none runs), beside a turn
   * that may be running: its reply's text. Nothing of it is recorded on the session.
   */
  ask(text: string, timeoutMs: number): Promise<string> {
    const session = this.deps.records.get(this.sessionId);
    const heldBy = this.deps.heldBy(session);
    if (heldBy && !this.agent.current?.agent.isRunning) return Promise.reject(new Error(`the agent cannot start now (${heldBy})`));
    return this.agent.ask(this.ensureAgent(), { text, cwd: session.cwd, timeoutMs });
  }

  answer(questionId: string, answers: Record<string, QuestionAnswer>): void {
    this.questions.answer(questionId, answers);
  }

  /** Withdraws a pending question (the agent gets "cancelled"); the turn goes on. */
  dismissQuestion(questionId: string): void {
    this.questions.dismiss(questionId);
  }

  async setConfig(configId: string, value: string): Promise<ConfigOption[]> {
    const connection = await this.ensureAgent();
    const options = await connection.set(configId, value);
    this.updates.recordConfig(options);
    return options;
  }

  /**
   * Stops the agent and forgets the live state; a turn in flight ends as interrupted. `gently` (at
   * shutdown): the agent may finish its writes first, so it can load its session at the next start.
   */
  stop(gently = false): Promise<void> {
    this.closed = true;
    this.deps.clock.clearTimeout(this.holdTimer);
    this.turn?.silence.stop();
    this.turn?.reply.close();
    this.questions.withdraw();
    return this.agent.close(gently);
  }

  backgroundTasks(): BackgroundTask[] {
    return this.agent.backgroundTasks();
  }

  /** A background task and what its command wrote so far. */
  taskOutput(terminalKey: string): { task: BackgroundTask } & TerminalOutput {
    return this.agent.taskOutput(terminalKey);
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
        this.holdTimer = this.deps.clock.setTimeout(() => this.startNextPrompt(), HOLD_RECHECK_MS);
        return;
      }
      // A failed turn is shown on its reply and the session; the queue still goes on.
      await this.runTurn(next.id);
    }
  }

  /** One turn: the prompt moves from the queue into the conversation, goes to the agent, and its end is written. */
  private async runTurn(promptId: string): Promise<void> {
    this.agent.holdIdleStop();
    const prompt = takePrompt(this.deps, this.sessionId, promptId);
    const turn = this.newTurn(promptId, prompt);
    this.turn = turn;
    try {
      this.recordGoalActivity();
    } catch (error) {
      this.deps.logger.warn("the goal's activity could not be recorded", { sessionId: this.sessionId, error });
    }
    const answered = await this.promptAgent(turn, prompt);
    // A reply that could not be written ends the turn in error, whatever the agent answered.
    const { stopReason, failure } = turn.failure ? { stopReason: "error", failure: turn.failure } : answered;
    // A question the agent left open (it crashed, or ended the turn without waiting) ends with the turn;
    // if that cannot be written now, the turn's end clears it and says so.
    try {
      this.questions.withdraw();
    } catch (error) {
      this.deps.logger.warn("a question left open could not be cleared yet", { sessionId: this.sessionId, error });
    }
    await this.finishTurn(turn, stopReason, failure);
  }

  /** The live state of a turn: its reply stream, the quiet-agent watch, its notices and tokens, and its abort. */
  private newTurn(promptId: string, { replyId, contextAtStart }: TurnPrompt): Turn {
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
        paused: () => this.questions.isOpen || this.agent.isWaitingToLoad,
        onQuiet: (quietMs) => turn.notices.quiet(quietMs),
        onHeard: () => turn.notices.spokeAgain(),
      }),
      notices: new TurnNotices(
        (status) => this.recordStatus(status),
        () => turn.silence.heard(),
      ),
      failure: undefined,
      tokens: new TurnTokens(contextAtStart),
    };
    return turn;
  }

  /** Starts the agent if none runs and sends it the prompt; how the turn ended, and why when it failed. */
  private async promptAgent(turn: Turn, prompt: TurnPrompt): Promise<TurnEnding> {
    try {
      const connection = await outlasting(this.ensureAgent(), turn.aborted);
      if (turn.cancelled) throw new TurnCancelled();
      const capabilities = connection.agent.capabilities.promptCapabilities ?? undefined;
      const { blocks, files } = promptBlocks(prompt.text, prompt.attachments, capabilities, this.deps.files, {
        folder: this.deps.records.get(this.sessionId).cwd,
        mentions: prompt.mentions,
      });
      for (const path of files) this.agent.grantRead(path);
      const handoff = this.handoff.due(turn, prompt.userItemId);
      // A leading text block: every ACP agent takes text, and none is asked to read a resource it may not show the model.
      if (handoff) blocks.unshift({ type: "text", text: handoff.text });
      turn.live = true;
      const response = await outlasting(connection.agent.prompt({ sessionId: connection.sessionId, prompt: blocks }), turn.aborted);
      if (handoff) this.handoff.done(turn, handoff);
      this.updates.recordTurnUsage(response);
      return { stopReason: turn.cancelled ? "cancelled" : response.stopReason };
    } catch (error) {
      if (turn.cancelled) return { stopReason: "cancelled" };
      const crash = await crashOf(error, this.agent.current?.agent);
      const failure = crash ?? failureReason(error, this.deps.launch(this.deps.records.get(this.sessionId)));
      if (crash) void this.agent.stop();
      this.deps.logger.warn("a turn failed", { sessionId: this.sessionId, error: failure, prompt: prompt.text.length });
      return { stopReason: "error", failure };
    } finally {
      clearTimeout(turn.escalation);
      turn.silence.stop();
    }
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
    this.agent.scheduleIdleStop();
  }

  private recordTurnEnd(turn: Turn, stopReason: string, failure: string | undefined): void {
    this.deps.records.update(this.sessionId, (session) => {
      this.deps.conversation.finish(turn.itemId, stopReason);
      this.deps.records.emitCompleted(this.sessionId, this.deps.conversation.get(turn.itemId)!);
      if (session.pendingQuestion) this.deps.records.emit(this.sessionId, "session.question", { question: null });
      session.pendingQuestion = null;
      session.sidebarState = failure ? "error" : session.pendingPlanApproval ? "waiting" : "idle";
      session.status = failure ?? turn.notices.notice;
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
      this.deps.records.update(this.sessionId, (session) => {
        session.status = status;
      });
    } catch (error) {
      this.deps.logger.error("recording the session's status failed", { sessionId: this.sessionId, error });
    }
  }

  /** The running agent, started when there is none; what its start found is recorded on the session. */
  private ensureAgent(): Promise<AgentConnection> {
    const session = this.deps.records.get(this.sessionId);
    return this.agent.ensure(session, this.deps.launch(session), ({ connection, refused, began, notice, forked, mcpServers }) => {
      this.handoff.agentStarted(notice);
      if (this.turn) this.turn.notices.notice = notice;
      this.deps.records.update(this.sessionId, (stored) => {
        stored.agentSessionId = connection.sessionId;
        if (began) stored.agentSessionBeganAt = new Date(this.deps.clock.now()).toISOString();
        if (connection.configOptions) this.updates.applyConfig(stored, connection.configOptions);
        Object.assign(stored.unavailableConfigSelections, refused);
        stored.mcpServers = mcpServers;
        stored.forkOf = null;
        if (forked) stored.historyHandoff = false;
        // The agent lost the conversation: Atrium hands it over with the next prompt.
        if (notice) {
          stored.historyHandoff = true;
          stored.status = this.turn ? notice : `${notice}; the conversation Atrium kept goes to it with the next prompt`;
        }
      });
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

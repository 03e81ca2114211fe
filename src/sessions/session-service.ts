import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { SessionRepository } from "../store/session-repository.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { SessionSearchRepository } from "../store/session-search-repository.ts";
import type { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import type { ScheduleRepository } from "../store/schedule-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import type { SessionEvents } from "../schemas/sessions.ts";
import type { EventLog } from "../events/event-log.ts";
import type { EventRecord } from "../schemas/events.ts";
import type { Logger } from "../logging/logger.ts";
import type { HarnessService } from "../harness/harness-service.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { WorktreeService } from "../projects/worktree-service.ts";
import type { BackgroundTaskOutput, Goal, Session, SessionConfig, SessionDetail, UsageLimits } from "../schemas/sessions.ts";
import type { AnswerQuestionBody, CreateSessionBody, UpdateSessionBody } from "../schemas/session-requests.ts";
import type { TranscriptDetailsPage } from "../schemas/transcript.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { resumeQueue, SessionRecords } from "./session-records.ts";
import { refuseWhileMoved, SessionPrompts } from "./session-prompts.ts";
import { SessionList } from "./session-list.ts";
import { SessionSchedules } from "../schedules/session-schedules.ts";
import { SessionRuntime } from "./session-runtime.ts";
import { reviseGoal } from "./goal-budget.ts";
import { readDetailsPage } from "./transcript-pages.ts";
import { sessionLaunch } from "./session-launch.ts";
import { newStoredSession } from "./new-session.ts";
import { SessionForks } from "./session-fork.ts";
import type { McpServersFor } from "./agent-connection.ts";
import { describeAgentError } from "./acp/agent-errors.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import type { Clock } from "../clock.ts";
import type { AgentChannelFactory } from "./acp/agent-channel.ts";
import type { SessionTimings } from "./session-timings.ts";

export interface SessionServiceDeps {
  store: Store;
  sessions: SessionRepository;
  search: SessionSearchRepository;
  conversation: ConversationRepository;
  queue: PromptQueueRepository;
  schedules: ScheduleRepository;
  transcript: TranscriptRepository;
  files: UploadedFiles;
  events: EventLog<typeof SessionEvents>;
  harnesses: HarnessService;
  projects: ProjectService;
  worktrees: WorktreeService;
  logger: Logger;
  serverId: string;
  timings: SessionTimings;
  clock: Clock;
  /** Every agent process is recorded here, so shutdown and the next start can stop it. */
  children: ChildProcesses;
  /** The MCP servers each agent is given. */
  mcpServers: McpServersFor;
  /** How agents are reached: their process's stdio unless a test connects agents in its own process. */
  openAgentChannel?: AgentChannelFactory;
  now?: () => Date;
}

const DEFAULT_PAGE = 50;
const DEFAULT_EVENTS = 500;

/**
 * Sessions: their records, queues and conversations, and one runtime per session that runs its agent.
 * Reads come from the store; the runtime writes what the agent does as it happens.
 */
export class SessionService {
  private readonly records: SessionRecords;
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly holds = new Set<{ reason: string }>();

  /** The prompt queues: send, edit and drop prompts. */
  readonly prompts: SessionPrompts;
  /** The list of sessions, a page at a time. */
  readonly listing: SessionList;
  /** Prompts queued at a time or on a cron expression. */
  readonly schedules: SessionSchedules;
  /** Forks at a message, and continuations with another agent. */
  readonly forks: SessionForks;

  constructor(private readonly deps: SessionServiceDeps) {
    this.records = new SessionRecords(deps.store, deps.sessions, deps.events, deps.serverId, deps.now ?? (() => new Date()));
    this.prompts = new SessionPrompts({ ...deps, records: this.records, startNext: (id) => this.runtime(id).startNextPrompt() });
    this.listing = new SessionList({ ...deps, records: this.records });
    this.schedules = new SessionSchedules({ ...deps, repository: deps.schedules, records: this.records, prompts: this.prompts });
    this.forks = new SessionForks({ ...deps, records: this.records, checkCanRun: (harnessId) => this.checkCanRun(harnessId) });
  }

  exists(id: string): boolean {
    return this.deps.sessions.get(id) !== undefined;
  }

  /**
   * Holds every queue: prompts are accepted and queued, but no new turn starts until the returned
   * release is called (Atrium's own update drains this way while it swaps its binary).
   */
  holdNewTurns(reason: string): () => void {
    const hold = { reason };
    this.holds.add(hold);
    return () => {
      if (!this.holds.delete(hold)) return;
      for (const runtime of this.runtimes.values()) runtime.startNextPrompt();
    };
  }

  titleOf(id: string): string | undefined {
    return this.deps.sessions.get(id)?.title;
  }

  /** Stops the session's agent and forgets its runtime (the session moved to another machine, or is deleted). */
  async release(id: string): Promise<void> {
    const runtime = this.runtimes.get(id);
    this.runtimes.delete(id);
    await runtime?.stop();
  }

  /** Sessions with a turn in flight (an update must not restart under them). */
  busySessions(): string[] {
    return [...this.runtimes.values()].filter((runtime) => runtime.isTurnRunning).map((runtime) => runtime.sessionId);
  }

  /**
   * After a restart: a reply that was streaming when the server stopped is marked interrupted (its
   * text so far kept), and queues that still hold prompts go on.
   */
  recover(): void {
    const interrupted = this.deps.conversation.generating();
    for (const { sessionId, itemId } of interrupted) {
      this.records.update(sessionId, (session) => {
        this.deps.conversation.finish(itemId, "interrupted");
        this.records.emitCompleted(sessionId, this.deps.conversation.get(itemId)!);
        session.sidebarState = "idle";
        if (session.pendingQuestion) this.records.emit(sessionId, "session.question", { question: null });
        session.pendingQuestion = null;
        session.status = "the turn was interrupted by a server restart";
        SessionRecords.attention(session);
      });
    }
    if (interrupted.length > 0) this.deps.logger.info("marked turns interrupted by the restart", { count: interrupted.length });
    for (const id of this.deps.queue.sessionsWithPrompts()) {
      if (this.exists(id)) this.runtime(id).startNextPrompt();
    }
  }

  async create(body: Static<typeof CreateSessionBody>): Promise<Session> {
    const project = this.deps.projects.get(body.projectId);
    this.checkCanRun(body.harnessId);
    const account = this.deps.harnesses.launchSpec(body.harnessId, body.harnessAccountId).accountId;
    if (body.parentSessionId && !this.exists(body.parentSessionId)) throw new InvalidInputError(`parentSessionId: no session has id ${body.parentSessionId}`);
    const location = project.locations[0];
    if (!location) throw new ConflictError(`project ${project.id} has no folder on this machine`);
    const id = newId("ses");
    const runLocation = body.runLocation ?? project.defaultRunLocation;
    let cwd = location.folderPath;
    let worktree: { id: string; name: string } | undefined;
    if (runLocation === "worktree") {
      const made = await this.deps.worktrees.create({ projectId: project.id, sessionId: id });
      cwd = made.path;
      worktree = { id: made.id, name: made.name };
    }
    const session = newStoredSession({
      id,
      projectId: project.id,
      harnessId: body.harnessId,
      harnessAccountId: account,
      title: body.title ?? "New session",
      titleSource: body.title ? "given" : "default",
      worktreeId: worktree?.id ?? null,
      worktreeName: worktree?.name ?? null,
      workspaceId: location.id,
      cwd,
      selections: body.configSelections ?? {},
      parentSessionId: body.parentSessionId ?? null,
      labels: body.labels ?? {},
      now: this.records.timestamp(),
    });
    return this.deps.store.transaction(() => {
      this.deps.sessions.save(session);
      const view = this.records.view(session);
      this.records.emit(id, "session.created", { session: view });
      return view;
    });
  }

  /** Refuses (409) a harness that cannot run sessions now: disabled, or not ready. */
  private checkCanRun(harnessId: string): void {
    const harness = this.deps.harnesses.get(harnessId);
    if (harness.enabled) return;
    const why =
      harness.readiness.state === "ready" ? "disabled" : `${harness.readiness.state}${harness.readiness.detail ? ` (${harness.readiness.detail})` : ""}`;
    throw new ConflictError(`${harness.name} is ${why}; it cannot run sessions`);
  }

  /** The session with one page of its conversation, all read in one transaction with the cursor. */
  detail(id: string, before: string | undefined, limit = DEFAULT_PAGE): SessionDetail {
    // A streaming reply's text is its stored deltas: those published ahead are stored first.
    const eventCursor = this.deps.events.storedCursor();
    return this.deps.store.read(() => {
      const session = this.records.get(id);
      const page = this.deps.conversation.page(id, before === undefined ? null : Number(before), limit);
      return {
        hasMore: page.olderThan !== null,
        nextBefore: page.olderThan === null ? null : String(page.olderThan),
        session: this.records.view(session),
        conversation: page.items,
        promptQueue: this.deps.queue.list(id),
        eventCursor,
        pendingQuestion: session.pendingQuestion,
        pendingPlanApproval: session.pendingPlanApproval,
        configOptions: session.configOptions,
        availableCommands: session.availableCommands ?? [],
        backgroundTasks: this.runtimes.get(id)?.backgroundTasks() ?? [],
        goal: session.goal,
        sessionPlan: session.plan,
        updateGate: this.deps.harnesses.updateGate(session.harnessId),
      };
    });
  }

  /** The rate limits of the session's harness account (endpoint 15). */
  usageLimits(id: string): UsageLimits {
    const session = this.records.get(id);
    return this.deps.harnesses.usageLimits(session.harnessId, session.harnessAccountId);
  }

  /** A background task of the session with its output so far. */
  taskOutput(id: string, terminalKey: string): BackgroundTaskOutput {
    this.records.get(id);
    const runtime = this.runtimes.get(id);
    if (!runtime) throw new NotFoundError(`no background task ${terminalKey} in session ${id}`);
    return runtime.taskOutput(terminalKey);
  }

  /** A page of a conversation item's details (thoughts, tool calls), read in one transaction with the cursor. */
  transcriptDetails(id: string, itemId: string, after: string | undefined, limit = DEFAULT_PAGE): TranscriptDetailsPage {
    const eventCursor = this.deps.events.storedCursor();
    return this.deps.store.read(() => {
      this.records.get(id);
      const item = this.deps.conversation.find(id, itemId);
      if (!item) throw new NotFoundError(`session ${id} has no conversation item ${itemId}`);
      return {
        itemId,
        revision: this.deps.transcript.revision(itemId),
        eventCursor,
        ...readDetailsPage(this.deps.transcript, itemId, after, item.isGenerating, limit),
      };
    });
  }

  update(id: string, body: Static<typeof UpdateSessionBody>): Session {
    return this.records.update(id, (session) => {
      if (body.title !== undefined || body.labels !== undefined || body.archived !== undefined) refuseWhileMoved(session, "change it");
      if (body.title !== undefined) {
        session.title = body.title ?? "New session";
        session.titleSource = body.title === null ? "default" : "given";
      }
      if (body.labels !== undefined) session.labels = body.labels ?? {};
      if (body.lastSeenAttentionSequence !== undefined) {
        session.lastSeenAttentionSequence = Math.min(body.lastSeenAttentionSequence, session.latestAttentionSequence);
      }
      // Archiving again keeps the first time; a session archived before keeps it.
      if (body.archived !== undefined) session.archivedAt = body.archived ? (session.archivedAt ?? this.records.timestamp()) : null;
    });
  }

  /** Stops the agent, removes the session's worktree (unless kept) and forgets the session. */
  async remove(id: string, keepWorktree: boolean): Promise<{ id: string }> {
    const session = this.records.get(id);
    if (session.move?.state === "moving") throw new ConflictError(`the session is moving to ${session.move.machineName}: delete it once the move has ended`);
    void this.release(id);
    if (session.worktreeId && !keepWorktree) {
      await this.deps.worktrees
        .remove(session.worktreeId)
        .catch((error: unknown) => this.deps.logger.warn("the session's worktree could not be removed", { sessionId: id, error }));
    }
    // Everything recorded under it goes: its rows, its events (what was said, streamed, asked), the
    // files only it attached; then the freed pages and the WAL are scrubbed, so nothing is readable.
    this.deps.store.transaction(() => {
      const attached = this.deps.files.attachedTo(id);
      this.deps.sessions.remove(id);
      this.deps.events.forgetSession(id);
      this.deps.files.forgetUnattached(attached, this.deps.store);
      this.records.emit(id, "session.deleted", { sessionId: id });
    });
    this.deps.store.scrubDeleted();
    return { id };
  }

  /** Deletes the sessions of projects that are gone (deleted by a build that left their sessions). */
  async removeOrphans(): Promise<number> {
    const orphans = this.deps.sessions.orphanedIds();
    for (const id of orphans) await this.remove(id, false);
    return orphans.length;
  }

  /** Deletes every session of a project (the project is being deleted). */
  async removeAllOf(projectId: string): Promise<void> {
    for (const id of this.deps.sessions.idsOf(projectId)) await this.remove(id, false);
  }

  async cancel(id: string): Promise<Session> {
    this.records.get(id);
    const runtime = this.runtimes.get(id);
    if (!runtime?.isTurnRunning) throw new ConflictError("no turn is running in this session");
    await runtime.cancel();
    return this.records.view(this.records.get(id));
  }

  answer(id: string, questionId: string, body: Static<typeof AnswerQuestionBody>): Session {
    this.records.get(id);
    const runtime = this.runtimes.get(id);
    if (!runtime) throw new NotFoundError(`no pending question ${questionId}`);
    runtime.answer(questionId, body.answers);
    return this.records.view(this.records.get(id));
  }

  dismissQuestion(id: string, questionId: string): Session {
    this.records.get(id);
    const runtime = this.runtimes.get(id);
    if (!runtime) throw new NotFoundError(`no pending question ${questionId}`);
    runtime.dismissQuestion(questionId);
    return this.records.view(this.records.get(id));
  }

  /** Approves the plan: the agent has left plan mode, and the queue goes on. */
  approvePlan(id: string): Session {
    const session = this.records.update(id, (stored) => {
      if (!stored.pendingPlanApproval) throw new ConflictError("no plan is waiting for approval");
      stored.pendingPlanApproval = false;
      if (stored.sidebarState === "waiting") stored.sidebarState = this.runtimes.get(id)?.isTurnRunning ? "working" : "idle";
    });
    this.runtime(id).startNextPrompt();
    return session;
  }

  /** Rejects the plan: the turn is cancelled and the agent is put back in plan mode. */
  async rejectPlan(id: string): Promise<Session> {
    const stored = this.records.get(id);
    if (!stored.pendingPlanApproval) throw new ConflictError("no plan is waiting for approval");
    const runtime = this.runtime(id);
    if (runtime.isTurnRunning) await runtime.cancel();
    const planMode = stored.configOptions.find((option) => option.category === "mode")?.options.find((option) => /plan/i.test(option.value));
    const modeOption = stored.configOptions.find((option) => option.category === "mode");
    if (planMode && modeOption) await runtime.setConfig(modeOption.id, planMode.value).catch(() => undefined);
    return this.records.update(id, (session) => {
      session.pendingPlanApproval = false;
      if (session.sidebarState === "waiting") session.sidebarState = "idle";
    });
  }

  /** Sets a config option on the agent (starting it if needed) and returns all options. */
  async setConfig(id: string, configId: string, value: string): Promise<SessionConfig> {
    const session = this.records.get(id);
    refuseWhileMoved(session, "set its options");
    const option = session.configOptions.find((candidate) => candidate.id === configId);
    if (session.configOptions.length > 0 && !option) throw new InvalidInputError(`configId: the agent has no option ${configId}`);
    if (option && !option.options.some((candidate) => candidate.value === value)) {
      throw new InvalidInputError(`value: ${configId} has no value "${value}"; it has ${option.options.map((o) => o.value).join(", ")}`);
    }
    try {
      const configOptions = await this.runtime(id).setConfig(configId, value);
      return { configId, configOptions };
    } catch (error) {
      if (error instanceof InvalidInputError) throw error;
      throw new ConflictError(`the agent did not accept ${configId}=${value}: ${describeAgentError(error)}`);
    }
  }

  /** Sets the goal; a spent budget raised above what was used lets the paused queue go on. */
  setGoal(id: string, objective: string, tokenBudget: number | null): Goal {
    const runtime = this.runtimes.get(id);
    let goal: Goal | undefined;
    this.records.update(id, (session) => {
      refuseWhileMoved(session, "set its goal");
      const wasSpent = session.goal?.status === "budget_exhausted";
      goal = reviseGoal(session.goal, objective, tokenBudget, runtime?.goalActivity(session) ?? "idle", this.records.timestamp());
      session.goal = goal;
      if (wasSpent && goal.status === "active") resumeQueue(session);
      this.records.emit(id, "session.goal", { goal });
    });
    runtime?.restartGoalCount();
    this.runtime(id).startNextPrompt();
    return goal!;
  }

  /** Removes the goal; a queue its spent budget paused goes on. */
  clearGoal(id: string): Session {
    const session = this.records.update(id, (stored) => {
      refuseWhileMoved(stored, "clear its goal");
      if (!stored.goal) throw new NotFoundError("the session has no goal");
      if (stored.goal.status === "budget_exhausted") resumeQueue(stored);
      stored.goal = null;
      this.records.emit(id, "session.goal", { goal: null });
    });
    this.runtime(id).startNextPrompt();
    return session;
  }

  events(id: string, after = 0, limit = DEFAULT_EVENTS): EventRecord[] {
    this.records.get(id);
    return this.deps.events.readSession(id, after, limit);
  }

  /** Asks the session's agent a one-off question outside its conversation (see SessionRuntime.ask). */
  ask(id: string, text: string, timeoutMs: number): Promise<string> {
    this.records.get(id);
    return this.runtime(id).ask(text, timeoutMs);
  }

  /** Stops every agent (server shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.stop(true)));
    this.runtimes.clear();
  }

  private runtime(id: string): SessionRuntime {
    let runtime = this.runtimes.get(id);
    if (!runtime) {
      runtime = new SessionRuntime(id, {
        store: this.deps.store,
        records: this.records,
        conversation: this.deps.conversation,
        queue: this.deps.queue,
        transcript: this.deps.transcript,
        files: this.deps.files,
        logger: this.deps.logger,
        ...this.deps.timings,
        clock: this.deps.clock,
        launch: (session) =>
          sessionLaunch(session, {
            harnesses: this.deps.harnesses,
            children: this.deps.children,
            initializeTimeoutMs: this.deps.timings.initializeTimeoutMs,
            openAgentChannel: this.deps.openAgentChannel,
            mcpServers: this.deps.mcpServers,
          }),
        heldBy: (session) =>
          (session.move && "the session's move to another machine") ||
          ([...this.holds][0]?.reason ?? this.deps.harnesses.updateGate(session.harnessId)?.harnessName),
      });
      this.runtimes.set(id, runtime);
    }
    return runtime;
  }
}

import type { Static } from "@sinclair/typebox";
import type { Store } from "../store/database.ts";
import type { SessionRepository, StoredSession } from "../store/session-repository.ts";
import type { SessionEvents } from "../schemas/sessions.ts";
import type { EventLog } from "../events/event-log.ts";
import type { ConversationItem, Session, SessionListItem } from "../schemas/sessions.ts";

/** Past this many characters, `session.message.completed` leaves the text out (events stay small). */
const COMPLETED_TEXT_LIMIT = 64 * 1024;
import { NotFoundError } from "../errors.ts";

/** The Session a client sees: the stored record plus what follows from it. */
export function sessionView(stored: StoredSession, serverId: string): Session {
  const unread = Math.max(0, stored.latestAttentionSequence - stored.lastSeenAttentionSequence);
  const actionRequiredKind = stored.pendingQuestion ? "question" : stored.pendingPlanApproval ? "plan_approval" : null;
  return {
    id: stored.id,
    projectId: stored.projectId,
    serverId,
    harnessId: stored.harnessId,
    harnessAccountId: stored.harnessAccountId,
    agentSessionId: stored.agentSessionId,
    title: stored.title,
    origin: "service",
    worktreeName: stored.worktreeName,
    workspaceId: stored.workspaceId,
    cwd: stored.cwd,
    configSelections: stored.configSelections,
    unavailableConfigSelections: stored.unavailableConfigSelections,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    sidebarState: stored.sidebarState,
    sidebarStateChangedAt: stored.sidebarStateChangedAt,
    usage: stored.usage,
    latestAttentionSequence: stored.latestAttentionSequence,
    lastSeenAttentionSequence: stored.lastSeenAttentionSequence,
    unreadCount: unread,
    hasUnreadError: stored.lastErrorAttentionSequence > stored.lastSeenAttentionSequence,
    actionRequired: actionRequiredKind !== null,
    actionRequiredKind,
    pendingPlanApproval: stored.pendingPlanApproval,
    parentSessionId: stored.parentSessionId,
    labels: stored.labels,
    status: stored.status,
    queuePaused: stored.queuePaused,
    archivedAt: stored.archivedAt ?? null,
    mcpServers: stored.mcpServers ?? [],
    move: stored.move ?? null,
  };
}

/**
 * Reads and changes session records. Every change is one transaction with its events, and each
 * session event carries the session id, so the per-session sequence has no gaps.
 */
export class SessionRecords {
  constructor(
    private readonly store: Store,
    private readonly sessions: SessionRepository,
    private readonly events: EventLog<typeof SessionEvents>,
    readonly serverId: string,
    private readonly now: () => Date,
  ) {}

  get(id: string): StoredSession {
    const session = this.sessions.get(id);
    if (!session) throw new NotFoundError(`no session has id ${id}`);
    return session;
  }

  view(stored: StoredSession): Session {
    return sessionView(stored, this.serverId);
  }

  listView(stored: StoredSession): SessionListItem {
    const { mcpServers: _readWithTheSession, ...item } = sessionView(stored, this.serverId);
    return item;
  }

  timestamp(): string {
    return this.now().toISOString();
  }

  /** Appends a session event; must run inside the change's transaction. */
  emit<K extends keyof typeof SessionEvents>(sessionId: string, kind: K, payload: Static<(typeof SessionEvents)[K]>): void {
    this.events.append(kind, sessionId, payload, { sessionId });
  }

  /** Publishes a session event at once and stores it a moment later with those that follow (a reply's deltas). */
  emitLive<K extends keyof typeof SessionEvents>(sessionId: string, kind: K, payload: Static<(typeof SessionEvents)[K]>): void {
    this.events.appendLive(kind, sessionId, payload, { sessionId });
  }

  /** Tells that a conversation item ended: the item, its text left out when it is long. */
  emitCompleted(sessionId: string, item: ConversationItem): void {
    const textOmitted = item.text.length > COMPLETED_TEXT_LIMIT;
    this.emit(sessionId, "session.message.completed", { item: textOmitted ? { ...item, text: "" } : item, textOmitted });
  }

  /**
   * Changes a session in one transaction: `change` mutates the record (and may write other rows and
   * events); the record is saved with a new updatedAt and `session.updated` is appended after them.
   */
  update(id: string, change: (session: StoredSession) => void): Session {
    return this.store.transaction(() => {
      const session = this.get(id);
      const stateBefore = session.sidebarState;
      change(session);
      session.updatedAt = this.timestamp();
      if (session.sidebarState !== stateBefore) session.sidebarStateChangedAt = session.updatedAt;
      this.sessions.save(session);
      const view = this.view(session);
      this.emit(id, "session.updated", { session: view });
      return view;
    });
  }

  /** Bumps the attention sequence: a turn ended, a question arrived, an error happened. */
  static attention(session: StoredSession, isError = false): void {
    session.latestAttentionSequence += 1;
    if (isError) session.lastErrorAttentionSequence = session.latestAttentionSequence;
  }
}

/** A session's title from its first prompt: the first line, at most 80 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}…` : line || "New session";
}

/** The user takes over again (a prompt sent, a goal raised or removed): a paused queue goes on. */
export function resumeQueue(session: StoredSession): void {
  if (!session.queuePaused) return;
  session.queuePaused = false;
  session.status = null;
}

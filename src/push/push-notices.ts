import type { Static } from "@sinclair/typebox";
import type { LoggedEvent } from "../events/event-log.ts";
import type { PushEventKind, PushPayload } from "../schemas/push.ts";
import type { SessionEvents } from "../schemas/sessions.ts";

/** Longest title and body a push carries (a notification shows less; the payload stays far under 4 KiB). */
const PUSH_TEXT_LIMIT = 200;

/** Something a session needs its user for, before it is addressed (the session's title is read when it is sent). */
export interface Notice {
  kind: PushEventKind;
  sessionId: string;
  body: string;
}

type Payload<K extends keyof typeof SessionEvents> = Static<(typeof SessionEvents)[K]>;

/** Cut to `limit` characters (by code point), with an ellipsis when cut; one line. */
export function truncate(text: string, limit = PUSH_TEXT_LIMIT): string {
  const line = text.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= limit ? line : `${chars.slice(0, limit - 1).join("")}…`;
}

/** `45 s`, `3 min`, `1 h 5 min`. */
export function spoken(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest === 0 ? "" : ` ${rest} min`}`;
}

/**
 * What a question asks, never what is answered: a permission says what for, a form its message.
 * Secret answers are never in a question (they go to the agent and are not stored).
 */
export function questionBody(question: NonNullable<Payload<"session.question">["question"]>): string {
  const what = question.message.trim() || question.questions[0]?.question.trim() || "";
  if (question.toolCall !== undefined && question.questions[0]?.id === "permission") {
    return truncate(what ? `${what} — asks for permission` : "The agent asks for permission");
  }
  return truncate(what || "A question waits for your answer");
}

export interface NoticeRules {
  /** A turn that ran at least this long pushes `turn` when it ends. */
  longTurnMs: number;
  now(): number;
}

/**
 * Reads the session events that mark what a user is needed for, as they are published:
 * - `question`: `session.question` with a question (a permission request or an agent's form);
 * - `plan`: `session.updated` whose session turns `pendingPlanApproval` on (the agent left plan mode);
 * - `turn` and `failed`: `session.message.completed` of a reply (the end of a turn), `failed` when its
 *   stopReason is `error` (the agent failed, crashed or could not start), `turn` when it ran at least
 *   `longTurnMs` since its `session.prompt.started`. A cancelled or interrupted turn pushes nothing.
 * Keeps only what it needs between events: each session's turn start and whether a plan waits.
 */
export class NoticeReader {
  private readonly turnStarts = new Map<string, number>();
  private readonly planWaits = new Map<string, boolean>();

  constructor(private readonly rules: NoticeRules) {}

  read(event: LoggedEvent): Notice | undefined {
    const sessionId = event.sessionId;
    if (sessionId === null) return undefined;
    const { kind, payload } = event.record;
    switch (kind) {
      case "session.prompt.started":
        this.turnStarts.set(sessionId, this.rules.now());
        return undefined;
      case "session.question": {
        const { question } = payload as Payload<"session.question">;
        return question ? { kind: "question", sessionId, body: questionBody(question) } : undefined;
      }
      case "session.updated": {
        const { session } = payload as Payload<"session.updated">;
        const waited = this.planWaits.get(sessionId);
        this.planWaits.set(sessionId, session.pendingPlanApproval);
        // Not seen before (the server started since): it turned on if the session became `waiting` in this very change.
        const turnedOn = waited === undefined ? session.sidebarState === "waiting" && session.sidebarStateChangedAt === session.updatedAt : !waited;
        return session.pendingPlanApproval && turnedOn ? { kind: "plan", sessionId, body: "A plan waits for your approval" } : undefined;
      }
      case "session.message.completed": {
        const { item } = payload as Payload<"session.message.completed">;
        if (item.role !== "assistant") return undefined;
        // A turn whose start this server did not see (it started before a restart) counts as short.
        const started = this.turnStarts.get(sessionId);
        this.turnStarts.delete(sessionId);
        const ranMs = started === undefined ? 0 : this.rules.now() - started;
        if (item.stopReason === "error")
          return { kind: "failed", sessionId, body: ranMs >= this.rules.longTurnMs ? `Ended in error after ${spoken(ranMs)}` : "Ended in error" };
        if (item.stopReason === "cancelled" || item.stopReason === "interrupted" || ranMs < this.rules.longTurnMs) return undefined;
        return { kind: "turn", sessionId, body: `Finished after ${spoken(ranMs)}` };
      }
      case "session.deleted":
        this.turnStarts.delete(sessionId);
        this.planWaits.delete(sessionId);
        return undefined;
      default:
        return undefined;
    }
  }
}

/** The payload as the service worker reads it. */
export function pushPayload(notice: Notice, session: { projectId: string; projectName: string | undefined; title: string }): PushPayload {
  const title = session.projectName ? `${session.projectName} · ${session.title}` : session.title;
  return {
    kind: notice.kind,
    sessionId: notice.sessionId,
    projectId: session.projectId,
    title: truncate(title),
    body: truncate(notice.body),
    url: `/#/sessions/${encodeURIComponent(notice.sessionId)}`,
    tag: `session-${notice.sessionId}`,
  };
}

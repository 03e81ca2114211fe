import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import type { Handoff } from "./history-handoff.ts";
import type { SessionRecords } from "./session-records.ts";
import { handoffNotice, storedHandoff } from "./stored-handoff.ts";
import type { Turn } from "./turn.ts";

/**
 * One session's handoff of the conversation Atrium kept to an agent that lacks it: due once its agent
 * could not load its session (the session's `historyHandoff`), carried by the next prompt, done once
 * the agent answered that prompt.
 */
export class SessionHandoff {
  /** Why the running agent began without the conversation, until a handoff tells it. */
  private loadNotice: string | null = null;

  constructor(
    private readonly deps: { records: SessionRecords; conversation: ConversationRepository; transcript: TranscriptRepository },
    private readonly sessionId: string,
  ) {}

  /** The session's agent started: why it began without the conversation, or null when it has it. */
  agentStarted(loadNotice: string | null): void {
    this.loadNotice = loadNotice;
  }

  /** The conversation to hand over with the turn's prompt, when the agent's session lacks it. */
  due(turn: Turn, userItemId: string): Handoff | undefined {
    if (!this.deps.records.get(this.sessionId).historyHandoff) return undefined;
    const handoff = storedHandoff(this.deps, this.sessionId, userItemId);
    if (handoff) return handoff;
    // Nothing was said before this prompt: there is nothing to hand over.
    if (this.loadNotice) turn.notices.notice = `${this.loadNotice}; it started a new one (nothing had been said yet)`;
    this.deps.records.update(this.sessionId, (stored) => {
      stored.historyHandoff = false;
    });
    return undefined;
  }

  /** The agent answered a prompt that carried the conversation: the handoff is done, and the session says so. */
  done(turn: Turn, handoff: Handoff): void {
    const notice = handoffNotice(handoff, this.loadNotice);
    this.loadNotice = null;
    turn.notices.notice = notice;
    this.deps.records.update(this.sessionId, (stored) => {
      stored.historyHandoff = false;
      stored.status = notice;
      const { turns, summarised, omitted } = handoff;
      this.deps.records.emit(this.sessionId, "session.history.handoff", { turns, summarised, omitted, chars: handoff.text.length, notice });
    });
  }
}

import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { TranscriptRepository } from "../store/transcript-repository.ts";
import { handoffTurns } from "./handoff-turns.ts";
import { buildHandoff, type Handoff } from "./history-handoff.ts";

/** A reply's details are read whole for a handoff (its tool calls); more than this many are not. */
const MAX_DETAILS = 10_000;

/**
 * The handoff of a session's stored conversation before `beforeItemId` (the prompt that carries it);
 * undefined when nothing came before.
 */
export function storedHandoff(
  deps: { conversation: ConversationRepository; transcript: TranscriptRepository },
  sessionId: string,
  beforeItemId: string,
): Handoff | undefined {
  const items = deps.conversation.all(sessionId);
  const end = items.findIndex((item) => item.id === beforeItemId);
  const earlier = end < 0 ? items : items.slice(0, end);
  if (earlier.length === 0) return undefined;
  return buildHandoff(handoffTurns(earlier, (itemId) => deps.transcript.after(itemId, 0, MAX_DETAILS).map((entry) => entry.payload)));
}

/** What the session's status says once the conversation was handed over; `loadNotice`: why the agent could not carry it itself. */
export function handoffNotice(handoff: Handoff, loadNotice: string | null): string {
  const turns = `${handoff.turns} turn${handoff.turns === 1 ? "" : "s"}`;
  const fitted = [handoff.summarised > 0 && `${handoff.summarised} summarised`, handoff.omitted > 0 && `${handoff.omitted} left out`]
    .filter(Boolean)
    .join(", ");
  const what = `the conversation Atrium kept (${turns}${fitted ? `, ${fitted} to fit` : ""}) was handed to the agent with this prompt`;
  return loadNotice ? `${loadNotice}; it started a new one, and ${what}` : what;
}

import type { Static } from "@sinclair/typebox";
import type { EventRecord } from "../../../schemas/events.ts";
import type { ConversationItem, SessionEvents } from "../../../schemas/sessions.ts";

/** How a reply ended, when that is worth saying (a normal end says nothing). */
export const STOP_NOTES: Record<string, string> = {
  cancelled: "Cancelled",
  error: "Ended in error",
  interrupted: "Interrupted by a server restart",
  max_tokens: "Stopped at the token limit",
  refusal: "The agent refused",
};

/** The last reply that ended among these events (`session.message.completed` comes once per item), if any. */
export function finishedReply(events: readonly EventRecord[]): ConversationItem | null {
  const ended = events
    .filter((event) => event.kind === "session.message.completed")
    .map((event) => (event.payload as Static<(typeof SessionEvents)["session.message.completed"]>).item)
    .filter((item) => item.role === "assistant");
  return ended.at(-1) ?? null;
}

/** What a screen reader is told when a reply ends: the session it is in, and how it ended when not normally. */
export function replyFinishedSentence(sessionTitle: string, stopReason: string | null): string {
  const note = stopReason ? STOP_NOTES[stopReason] : undefined;
  return `Reply finished in ${sessionTitle}${note ? `: ${note}.` : "."}`;
}

import { describe, expect, test } from "bun:test";
import { finishedReply, replyFinishedSentence } from "../../src/console/ui/sessions/reply-end.ts";
import type { EventRecord } from "../../src/schemas/events.ts";
import type { ConversationItem } from "../../src/schemas/sessions.ts";

// What the session page's live region says when a reply ends: once per reply, never for a delta.
let nextId = 0;
const event = (kind: string, payload: unknown): EventRecord =>
  ({
    id: ++nextId,
    globalEventId: nextId,
    kind,
    sessionId: "ses_1",
    subjectRevision: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    payload,
  }) as unknown as EventRecord;
const item = (role: "user" | "assistant", stopReason: string | null): ConversationItem =>
  ({ id: `itm_${role}`, role, text: "", stopReason }) as ConversationItem;

describe("a reply's end, said", () => {
  test("deltas and a user's message end no reply; the assistant's completion does, the last of a frame's", () => {
    expect(finishedReply([event("session.message.delta", { itemId: "itm_assistant", text: "a" })])).toBeNull();
    expect(finishedReply([event("session.message.completed", { item: item("user", null), textOmitted: false })])).toBeNull();
    const first = { ...item("assistant", "end_turn"), id: "itm_first" };
    const second = { ...item("assistant", "cancelled"), id: "itm_second" };
    const frame = [
      event("session.message.completed", { item: first, textOmitted: false }),
      event("session.message.delta", { itemId: "itm_x", text: "b" }),
      event("session.message.completed", { item: second, textOmitted: true }),
    ];
    expect(finishedReply(frame)?.id).toBe("itm_second");
  });

  test("the sentence names the session, and how the reply ended when not normally", () => {
    expect(replyFinishedSentence("Phone session", "end_turn")).toBe("Reply finished in Phone session.");
    expect(replyFinishedSentence("Phone session", null)).toBe("Reply finished in Phone session.");
    expect(replyFinishedSentence("Phone session", "cancelled")).toBe("Reply finished in Phone session: Cancelled.");
  });
});

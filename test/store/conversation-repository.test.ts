import { afterEach, expect, test } from "bun:test";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";
import { ConversationRepository } from "../../src/store/conversation-repository.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import type { ConversationItem } from "../../src/schemas/sessions.ts";

let db: TestStore;
afterEach(() => db.close());

const item = (id: string, text: string): ConversationItem => ({
  id,
  role: "assistant",
  messageId: null,
  text,
  createdAt: "2026-11-23T00:00:00.000Z",
  isGenerating: false,
  attachments: [],
  stopReason: "end_turn",
});

function delta(events: EventRepository, sessionSeq: number, itemId: string, text: string): void {
  events.insert({
    globalId: sessionSeq,
    sessionId: "ses_1",
    sessionSeq,
    subjectId: "ses_1",
    subjectRevision: sessionSeq,
    kind: "session.message.delta",
    payload: JSON.stringify({ itemId, text }),
    createdAt: "2026-11-23T00:00:00.000Z",
  });
}

test("a streamed reply's text is its deltas joined in order; an item stored before keeps its row's text, not doubled by its deltas", () => {
  db = openTestStore();
  const conversation = new ConversationRepository(db.store);
  const events = new EventRepository(db.store);
  // Written by an older Atrium: the whole text in the row, and the deltas it also published.
  conversation.append("ses_1", item("msg_old", "Hello world"));
  delta(events, 1, "msg_old", "Hello ");
  delta(events, 2, "msg_old", "world");
  // Written now: the row holds nothing, the deltas hold the text.
  conversation.append("ses_1", item("msg_new", ""), true);
  delta(events, 3, "msg_new", "one ");
  delta(events, 4, "msg_other", "not this item's ");
  delta(events, 5, "msg_new", "two");
  expect(conversation.get("msg_old")!.text).toBe("Hello world");
  expect(conversation.get("msg_new")!.text).toBe("one two");
  expect(conversation.page("ses_1", null, 10).items.map((entry) => entry.text)).toEqual(["Hello world", "one two"]);
  // Found through the index by item, not by scanning every delta.
  const plan = db.store.db
    .query<{ detail: string }, []>(
      "EXPLAIN QUERY PLAN SELECT text FROM (SELECT CASE WHEN text_in_deltas = 1 THEN (SELECT group_concat(json_extract(payload, '$.text'), '') FROM events WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = +conversation_items.id) END AS text FROM conversation_items)",
    )
    .all()
    .map((row) => row.detail)
    .join(" | ");
  expect(plan).toContain("USING INDEX events_delta_by_item");
});

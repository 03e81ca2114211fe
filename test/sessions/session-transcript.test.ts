import { afterEach, describe, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { Type, type Static } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { TranscriptDetailsPage } from "../../src/schemas/transcript.ts";
import { lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

type Page = Static<typeof TranscriptDetailsPage>;

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

describe("transcript details (endpoint 12)", () => {
  test("thoughts and tool calls become entries in order; updates merge in place with a new revision", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({
      prompts: {
        work: [
          { thought: "Let me " },
          { thought: "look." },
          { toolCall: { id: "t1", title: "ls -la" } },
          { toolUpdate: { id: "t1", status: "in_progress" } },
          { chunk: "Found it. " },
          { thought: "Now the second step." },
          { toolUpdate: { id: "t1", status: "completed", output: "a.txt\nb.txt" } },
          { toolCall: { id: "t2", title: "cat a.txt", kind: "read" } },
          { toolUpdate: { id: "t2", status: "failed", output: "x".repeat(70_000) } },
          { chunk: "Done." },
        ],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "work" });
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    const reply = lastReply(done)!;
    // Text after a tool call or a thought is a paragraph of its own, so markdown after a call stays markdown.
    expect(reply.text).toBe("Found it. \n\nDone.");

    const page = await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details`);
    expect(page.status).toBe(200);
    assertMatchesSchema(TranscriptDetailsPage, page.body);
    expect(page.body.entries.map((entry) => [entry.key, entry.position])).toEqual([
      ["thought:1", 1],
      ["tool:t1", 2],
      ["thought:2", 3],
      ["tool:t2", 4],
    ]);
    const [thought, tool1, , tool2] = page.body.entries as Array<{ revision: number; payload: Record<string, unknown> }>;
    // Each entry says where in the text it happened: the first thought and call before any text, the rest after "Found it. ".
    expect(thought!.payload).toEqual({ type: "thought", text: "Let me look.", textOffset: 0 });
    expect(page.body.entries.map((entry) => entry.payload.textOffset)).toEqual([0, 0, 10, 10]);
    expect(tool1!.payload).toMatchObject({
      type: "tool_call",
      toolCallId: "t1",
      title: "ls -la",
      kind: "execute",
      status: "completed",
      rawInput: { command: "ls -la" },
    });
    expect(tool1!.payload.content).toEqual([{ type: "content", content: { type: "text", text: "a.txt\nb.txt" } }]);
    expect(tool1!.revision).toBe(3);
    // Long output is cut, saying how much was left out.
    const output = (tool2!.payload.content as Array<{ content: { text: string } }>)[0]!.content.text;
    expect(output).toEndWith("… [4464 more characters not kept]");
    expect(tool2!.payload.status).toBe("failed");
    expect(page.body.revision).toBe(page.body.entries.reduce((sum, entry) => sum + entry.revision, 0));
    expect(page.body).toMatchObject({ itemId: reply.id, nextAfter: null, previousBefore: null });
    expect(page.body.eventCursor).toBeGreaterThan(0);

    // Pages of two: forwards from the start, back from the newest.
    const first = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details?limit=2`)).body;
    expect(first.entries.map((entry) => entry.position)).toEqual([1, 2]);
    expect(first.previousBefore).toBeNull();
    const second = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details?limit=2&after=${first.nextAfter}`)).body;
    expect(second.entries.map((entry) => entry.position)).toEqual([3, 4]);
    expect(second.nextAfter).toBeNull();
    const latest = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details?limit=3&after=latest`)).body;
    expect(latest.entries.map((entry) => entry.position)).toEqual([2, 3, 4]);
    const older = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details?after=${latest.previousBefore}`)).body;
    expect(older.entries.map((entry) => entry.position)).toEqual([1]);
    expect(older.previousBefore).toBeNull();

    // Each change is an event naming the entry.
    const events = await t.json<Array<Static<typeof EventRecord>>>("GET", `/v1/sessions/${session.id}/events?limit=1000`);
    assertMatchesSchema(Type.Array(EventRecord), events.body);
    const changes = events.body.filter((event) => event.kind === "session.transcript").map((event) => event.payload as { key: string; revision: number });
    expect(changes.filter((change) => change.key === "tool:t1").map((change) => change.revision)).toEqual([1, 2, 3]);

    // The user's item has no details; unknown items, sessions and bad cursors are refused.
    const user = done.conversation.find((item) => item.role === "user")!;
    expect((await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${user.id}/details`)).body.entries).toEqual([]);
    expect((await t.json("GET", `/v1/sessions/${session.id}/transcript/msg_nope/details`)).status).toBe(404);
    expect((await t.json("GET", `/v1/sessions/ses_nope/transcript/${reply.id}/details`)).status).toBe(404);
    for (const bad of ["x1", "a", "a-1", "latest2"]) {
      expect((await t.json("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details?after=${bad}`)).status).toBe(400);
    }
  });

  test("while the reply streams, nextAfter stays a cursor to poll from", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({ prompts: { slow: [{ thought: "thinking" }, { toolCall: { id: "t1", title: "sleep" } }, { waitForCancel: true }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "slow" });
    const running = await t.until(session.id, (d) => d.session.sidebarState === "working" && lastReply(d) !== undefined);
    const replyId = lastReply(running)!.id;
    const path = `/v1/sessions/${session.id}/transcript/${replyId}/details`;
    const page = await until(
      async () => (await t.json<Page>("GET", path)).body,
      (read) => read.entries.length >= 2,
      5000,
    );
    expect(page.entries.map((entry) => entry.key)).toEqual(["thought:1", "tool:t1"]);
    expect(page.nextAfter).toBe("a2");
    const empty = (await t.json<Page>("GET", `${path}?after=${page.nextAfter}`)).body;
    expect(empty.entries).toEqual([]);
    expect(empty.nextAfter).toBe("a2");
    await t.json("POST", `/v1/sessions/${session.id}/cancel`);
    await t.until(session.id, (d) => lastReply(d)?.stopReason === "cancelled");
    expect((await t.json<Page>("GET", `${path}?after=a2`)).body.nextAfter).toBeNull();
  });
});

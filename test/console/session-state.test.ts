import { afterEach, describe, expect, test } from "bun:test";
import { applySessionEvent } from "../../src/console/ui/sessions/session-state.ts";
import type { EventRecord } from "../../src/schemas/events.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { idle, type DetailBody, type SessionTestServer, startSessionServer } from "../sessions/session-helpers.ts";

// The console reads a session once and moves it forward with the session's events. Here a real server
// with the scripted agent runs turns that touch every part of the detail; the detail read at the start,
// folded with every event since, must be the detail read at the end.
let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

/** The parts of a detail the events carry (paging fields and the read cursor are the reader's). */
const shown = (detail: DetailBody) => ({
  session: detail.session,
  conversation: detail.conversation,
  promptQueue: detail.promptQueue,
  pendingQuestion: detail.pendingQuestion,
  pendingPlanApproval: detail.pendingPlanApproval,
  configOptions: detail.configOptions,
  backgroundTasks: detail.backgroundTasks,
  goal: detail.goal,
  sessionPlan: detail.sessionPlan,
});

describe("the console's session state", () => {
  test("the detail read at the start plus every event since equals the detail read at the end", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({
      prompts: {
        think: [
          { thought: "Let me see." },
          { toolCall: { id: "t1", title: "Read file", kind: "read" } },
          { toolUpdate: { id: "t1", status: "completed", output: "done" } },
          { chunks: { count: 300, text: "word " } },
          { turnUsage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
        ],
        plan: [
          { plan: [{ content: "Step one", priority: "high", status: "in_progress" }] },
          { usage: { used: 50, size: 1000 } },
          { mode: "default" },
          { chunk: "planned" },
        ],
        ask: [{ permission: { title: "Run it?", options: [{ optionId: "yes", name: "Yes" }] } }, { chunk: "ran" }],
        slow: [{ gate: "slow" }, { chunk: "slow done" }],
        "*": [{ chunk: "ok" }],
      },
    });
    const session = await t.newSession();
    const start = await t.detail(session.id);
    const sse = new SseClient(`${t.url}/v1/events/stream?sessionId=${session.id}&after=${start.eventCursor}`, { authorization: `Bearer ${t.token}` });
    await sse.ready;

    const send = (text: string) => t.json<{ id: string }>("POST", `/v1/sessions/${session.id}/prompts`, { text });
    await send("think");
    await t.until(session.id, idle);
    await send("plan");
    await t.until(session.id, (detail) => detail.pendingPlanApproval);
    await t.json("POST", `/v1/sessions/${session.id}/plan/approve`);
    await send("ask");
    const asked = await t.until(session.id, (detail) => detail.pendingQuestion !== null);
    await t.json("POST", `/v1/sessions/${session.id}/questions/${asked.pendingQuestion!.questionId}/answer`, {
      answers: { [asked.pendingQuestion!.questions[0]!.id]: { optionIds: ["yes"] } },
    });
    await t.until(session.id, idle);
    await send("slow");
    const edited = await send("to be edited");
    const dropped = await send("to be dropped");
    await t.json("PATCH", `/v1/sessions/${session.id}/prompts/${edited.body.id}`, { text: "edited" });
    await t.json("DELETE", `/v1/sessions/${session.id}/prompts/${dropped.body.id}`);
    await t.json("PUT", `/v1/sessions/${session.id}/goal`, { objective: "Finish", tokenBudget: 100000 });
    await t.json("PATCH", `/v1/sessions/${session.id}`, { title: "Renamed" });
    t.agents.openGate("slow");
    const end = await t.until(session.id, (detail) => idle(detail) && detail.conversation.length === 10);

    const cursor = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
    await sse.waitFor((frame) => Number(frame.id) === cursor);
    sse.close();
    const events = sse.frames.filter((frame) => frame.event).map((frame) => JSON.parse(frame.data) as EventRecord);
    expect(events.map((event) => event.kind)).toContain("session.message.delta");
    expect(shown(events.reduce(applySessionEvent, start))).toEqual(shown(end));
    expect(end.conversation.map((item) => item.text)).toContain("edited");
  });
});

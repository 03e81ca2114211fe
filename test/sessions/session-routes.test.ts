import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { QueuedPrompt, Session, SessionDetail, SessionListItem } from "../../src/schemas/sessions.ts";
import { idle, lastReply, startSessionServer, type SessionBody, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer;

/** For the tests of a block that each start their own server (their options, or their own agents). */
function serverPerTest(): void {
  afterEach(async () => {
    await t.cleanup();
  });
}

describe("the echo agent, end to end", () => {
  serverPerTest();

  test("create, prompt, stream over SSE, read back; every shape matches its schema and the session's event ids have no gaps", async () => {
    t = await startSessionServer();
    const session = await t.newSession("echo");
    assertMatchesSchema(Session, session);
    expect(session).toMatchObject({ harnessId: "echo", harnessAccountId: "echo:default", sidebarState: "idle", title: "New session" });
    const cursor = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
    const sse = new SseClient(`${t.url}/v1/events/stream?after=${cursor}&sessionId=${session.id}`, { authorization: `Bearer ${t.token}` });
    await sse.ready;

    const sent = await t.json<unknown>("POST", `/v1/sessions/${session.id}/prompts`, { text: "hello there" });
    expect(sent.status).toBe(201);
    assertMatchesSchema(QueuedPrompt, sent.body);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    assertMatchesSchema(SessionDetail, done);
    expect(done.conversation.map((item) => [item.role, item.text])).toEqual([
      ["user", "hello there"],
      ["assistant", "Echo: hello there"],
    ]);
    expect(done.session).toMatchObject({ title: "hello there", sidebarState: "idle", unreadCount: 1, configSelections: { mode: "default" } });
    expect(done.session.agentSessionId).toStartWith("echo-");

    await sse.waitFor((frame) => frame.event === "session.message.completed");
    sse.close();
    const streamed = sse.frames.filter((frame) => frame.event === "session.message.delta");
    expect(streamed.map((frame) => (JSON.parse(frame.data) as { payload: { text: string } }).payload.text).join("")).toBe("Echo: hello there");

    const events = await t.json<unknown[]>("GET", `/v1/sessions/${session.id}/events`);
    assertMatchesSchema(Type.Array(EventRecord), events.body);
    const ids = (events.body as Array<{ id: number }>).map((event) => event.id);
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    const later = await t.json<Array<{ id: number }>>("GET", `/v1/sessions/${session.id}/events?after=3&limit=2`);
    expect(later.body.map((event) => event.id)).toEqual([4, 5]);

    // Reading marks attention seen.
    const seen = await t.json<SessionBody>("PATCH", `/v1/sessions/${session.id}`, { lastSeenAttentionSequence: done.session.latestAttentionSequence });
    expect(seen.body).toMatchObject({ unreadCount: 0 });
  });

  test("in plan mode, /plan shows the plan and leaves plan mode, so the plan waits for approval", async () => {
    t = await startSessionServer();
    const session = await t.newSession("echo");
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "hi" });
    await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect((await t.json("POST", `/v1/sessions/${session.id}/config`, { configId: "mode", value: "plan" })).status).toBe(200);
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "/plan" });
    const planned = await t.until(session.id, (d) => d.conversation.length === 4 && lastReply(d)?.stopReason === "end_turn");
    expect(planned.sessionPlan?.entries.map((entry) => entry.status)).toEqual(["completed", "in_progress", "pending"]);
    expect(planned).toMatchObject({ pendingPlanApproval: true, session: { actionRequiredKind: "plan_approval", configSelections: { mode: "default" } } });
    expect((await t.json<SessionBody>("POST", `/v1/sessions/${session.id}/plan/approve`)).body).toMatchObject({ pendingPlanApproval: false });
  });

  test("list filters and orders by updatedAt; bad input is 400 and unknown ids 404, changing nothing", async () => {
    t = await startSessionServer();
    const first = await t.newSession("echo");
    const second = await t.newSession("scripted");
    await t.json("PATCH", `/v1/sessions/${first.id}`, { title: "Renamed", labels: { ticket: "A-1" } });
    const all = await t.json<SessionBody[]>("GET", "/v1/sessions");
    assertMatchesSchema(Type.Array(SessionListItem), all.body);
    expect(all.body.map((s) => s.id)).toEqual([first.id, second.id]);
    expect((await t.json<SessionBody[]>("GET", "/v1/sessions?harnessId=scripted")).body.map((s) => s.id)).toEqual([second.id]);
    expect((await t.json<SessionBody[]>("GET", `/v1/sessions?projectId=${first.projectId}`)).body.map((s) => s.id)).toEqual([first.id]);
    expect((await t.json("GET", "/v1/sessions?state=sleeping")).status).toBe(400);
    expect((await t.json("POST", "/v1/sessions", { projectId: first.projectId, harnessId: "nope" })).status).toBe(404);
    expect((await t.json("POST", "/v1/sessions", { projectId: "prj_nope", harnessId: "echo" })).status).toBe(404);
    expect((await t.json("POST", "/v1/sessions", { harnessId: "echo" })).status).toBe(400);
    const missingHarness = await t.json<{ error: string }>("POST", "/v1/sessions", { projectId: first.projectId, harnessId: "claude" });
    expect(missingHarness.status).toBe(409);
    expect((await t.json("POST", `/v1/sessions/${first.id}/prompts`, { text: "" })).status).toBe(400);
    expect((await t.json("POST", "/v1/sessions/ses_nope/prompts", { text: "x" })).status).toBe(404);
    expect((await t.json("GET", "/v1/sessions?limit=5")).status).toBe(200);
    expect((await t.json<SessionBody[]>("GET", "/v1/sessions")).body).toHaveLength(2);
    const deleted = await t.json("DELETE", `/v1/sessions/${second.id}`);
    expect(deleted.status).toBe(200);
    expect((await t.json("GET", `/v1/sessions/${second.id}`)).status).toBe(404);
  });
});

// One server for these: each test writes its script, makes its own session and asserts only on it.
describe("turns with the scripted agent", () => {
  beforeAll(async () => {
    t = await startSessionServer({ agents: "in-process" });
  });
  afterAll(async () => {
    await t.cleanup();
  });

  test("three rapid prompts run one at a time, in order; a queued prompt can be edited or dropped", async () => {
    // The first turn runs until the test lets it go on; the others wait in the queue behind it.
    t.script({ prompts: { "*": [{ gate: "go" }, { chunk: "done" }] } });
    const session = await t.newSession();
    const sent = await Promise.all(["one", "two", "three"].map((text) => t.json<{ id: string }>("POST", `/v1/sessions/${session.id}/prompts`, { text })));
    const queued = await t.until(session.id, (d) => d.session.sidebarState === "working" && d.conversation.length === 2);
    expect(queued.promptQueue.map((prompt) => prompt.text)).toEqual(["two", "three"]);
    const last = sent[2]!.body.id;
    const edited = await t.json<{ text: string }>("PATCH", `/v1/sessions/${session.id}/prompts/${last}`, { text: "three, edited" });
    expect(edited.status).toBe(200);
    t.agents.openGate("go");
    const done = await t.until(session.id, (d) => d.conversation.length === 6 && idle(d));
    expect(done.conversation.filter((item) => item.role === "user").map((item) => item.text)).toEqual(["one", "two", "three, edited"]);
    expect(done.conversation.filter((item) => item.role === "assistant").every((item) => item.text === "done" && item.stopReason === "end_turn")).toBe(true);
    expect((await t.json("PATCH", `/v1/sessions/${session.id}/prompts/${last}`, { text: "too late" })).status).toBe(404);
  });

  test("cancel ends the turn as cancelled and keeps the partial reply; cancelling with no turn is 409", async () => {
    t.script({ prompts: { "*": [{ chunk: "partial" }, { waitForCancel: true }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "go" });
    await t.until(session.id, (d) => lastReply(d)?.text === "partial");
    const cancelled = await t.json<SessionBody>("POST", `/v1/sessions/${session.id}/cancel`);
    expect(cancelled.status).toBe(200);
    const done = await t.until(session.id, (d) => lastReply(d)?.isGenerating === false);
    expect(lastReply(done)).toMatchObject({ text: "partial", stopReason: "cancelled" });
    expect(done.session.sidebarState).toBe("idle");
    expect((await t.json("POST", `/v1/sessions/${session.id}/cancel`)).status).toBe(409);
  });

  test("a permission request is the pending question; answered it goes to the agent, dismissed it is cancelled", async () => {
    t.script({
      prompts: {
        "*": [
          {
            permission: {
              title: "Run rm -rf build",
              options: [
                { optionId: "yes", name: "Yes" },
                { optionId: "no", name: "No" },
              ],
            },
          },
        ],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "first" });
    const asking = await t.until(session.id, (d) => d.pendingQuestion !== null);
    expect(asking.session).toMatchObject({ sidebarState: "waiting", actionRequired: true, actionRequiredKind: "question" });
    const question = asking.pendingQuestion!;
    expect(question.questions[0]!.options.map((option) => option.id)).toEqual(["yes", "no"]);
    const wrong = await t.json<{ error: string }>("POST", `/v1/sessions/${session.id}/questions/${question.questionId}/answer`, {
      answers: { permission: { optionIds: ["maybe"] } },
    });
    expect(wrong.status).toBe(400);
    expect((await t.detail(session.id)).pendingQuestion?.questionId).toBe(question.questionId);
    const answered = await t.json<SessionBody>("POST", `/v1/sessions/${session.id}/questions/${question.questionId}/answer`, {
      answers: { permission: { optionIds: ["yes"] } },
    });
    expect(answered.status).toBe(200);
    const first = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(first)!.text).toBe("chose yes");
    expect(first.pendingQuestion).toBeNull();

    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "second" });
    const again = await t.until(session.id, (d) => d.pendingQuestion !== null);
    await t.json("POST", `/v1/sessions/${session.id}/questions/${again.pendingQuestion!.questionId}/dismiss`);
    const second = await t.until(session.id, (d) => d.conversation.length === 4 && idle(d));
    expect(lastReply(second)!.text).toBe("question cancelled");
    expect((await t.json("POST", `/v1/sessions/${session.id}/questions/q_nope/answer`, { answers: {} })).status).toBe(404);
  });

  test("a form elicitation becomes questions; the answers come back to the agent as the form's content", async () => {
    t.script({
      prompts: {
        "*": [
          {
            elicit: {
              message: "Deploy settings",
              properties: { target: { type: "string", enum: ["staging", "prod"] }, note: { type: "string" }, confirm: { type: "boolean" } },
            },
          },
        ],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "deploy" });
    const asking = await t.until(session.id, (d) => d.pendingQuestion !== null);
    const questions = asking.pendingQuestion!.questions;
    expect(questions.map((q) => [q.id, q.allowsOther, q.options.length])).toEqual([
      ["target", false, 2],
      ["note", true, 0],
      ["confirm", false, 2],
    ]);
    await t.json("POST", `/v1/sessions/${session.id}/questions/${asking.pendingQuestion!.questionId}/answer`, {
      answers: { target: { optionIds: ["prod"] }, note: { text: "ship it" }, confirm: { optionIds: ["true"] } },
    });
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(JSON.parse(lastReply(done)!.text)).toEqual({ action: "accept", content: { target: "prod", note: "ship it", confirm: true } });
  });

  test("plan, usage and leaving plan mode: the plan is recorded, approval is asked for and given", async () => {
    t.script({
      prompts: {
        "*": [
          { plan: [{ content: "Step one", priority: "high", status: "in_progress" }] },
          { usage: { used: 1200, size: 200000, cost: { amount: 0.25, currency: "USD" } } },
          { mode: "default" },
          { chunk: "planned" },
          { turnUsage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 } },
        ],
      },
    });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "plan it" });
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(done.sessionPlan).toEqual({ entries: [{ content: "Step one", priority: "high", status: "in_progress" }] });
    expect(done.session.usage).toMatchObject({
      used: 1200,
      size: 200000,
      costAmount: 0.25,
      costCurrency: "USD",
      costKind: "reported",
      totalTokens: 120,
      inputTokens: 100,
    });
    expect(done.pendingPlanApproval).toBe(true);
    expect(done.session).toMatchObject({ sidebarState: "waiting", actionRequiredKind: "plan_approval", configSelections: { mode: "default" } });
    const approved = await t.json<SessionBody>("POST", `/v1/sessions/${session.id}/plan/approve`);
    expect(approved.body).toMatchObject({ pendingPlanApproval: false, sidebarState: "idle" });
    expect((await t.json("POST", `/v1/sessions/${session.id}/plan/approve`)).status).toBe(409);
  });

  test("config: set on the agent and returned; an unknown option or value is 400", async () => {
    t.script({ prompts: {} });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "hi" });
    await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    const set = await t.json<{ configId: string; configOptions: Array<{ id: string; currentValue: string }> }>("POST", `/v1/sessions/${session.id}/config`, {
      configId: "mode",
      value: "default",
    });
    expect(set.status).toBe(200);
    expect(set.body.configOptions.find((option) => option.id === "mode")!.currentValue).toBe("default");
    expect((await t.detail(session.id)).session.configSelections).toEqual({ mode: "default" });
    expect((await t.json("POST", `/v1/sessions/${session.id}/config`, { configId: "model", value: "x" })).status).toBe(400);
    expect((await t.json("POST", `/v1/sessions/${session.id}/config`, { configId: "mode", value: "turbo" })).status).toBe(400);
  });
});

describe("faults", () => {
  serverPerTest();

  test("an agent that wants a sign-in: the turn fails and the status says how to sign in", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({ prompts: { "*": [{ authRequired: true }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "hi" });
    const failed = await t.until(session.id, (d) => lastReply(d)?.stopReason === "error");
    expect(failed.session).toMatchObject({ sidebarState: "error", hasUnreadError: true });
    expect(failed.session.status).toBe("Scripted agent needs a sign-in (Authentication required)");
  });

  test("a crash mid-turn: error with the agent's last words, partial reply kept; the next prompt starts a new agent", async () => {
    t = await startSessionServer();
    t.script({ prompts: { boom: [{ chunk: "half a rep" }, { gate: "crash" }, { crash: "fatal: out of tokens" }], "*": [{ chunk: "back" }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "boom" });
    // It crashes once the server has the first half of its reply.
    await t.until(session.id, (d) => lastReply(d)?.text === "half a rep");
    t.agents.openGate("crash");
    const failed = await t.until(session.id, (d) => d.session.sidebarState === "error");
    expect(failed.session.status).toContain("fatal: out of tokens");
    expect(failed.session.hasUnreadError).toBe(true);
    expect(lastReply(failed)).toMatchObject({ text: "half a rep", stopReason: "error", isGenerating: false });
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "again" });
    const back = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(back)!.text).toBe("back");
    // The new agent cannot load the crashed one's session: the conversation is handed to it.
    expect(back.session.sidebarState).toBe("idle");
    expect(back.session.status).toBe(
      "the agent cannot load an earlier session (it does not offer session/load); it started a new one, and the conversation Atrium kept (1 turn) was handed to the agent with this prompt",
    );
  });

  test("an agent that never answers initialize is stopped at the time limit with a clear error", async () => {
    t = await startSessionServer({ agents: "in-process", tuning: { modules: { sessions: { initializeTimeoutMs: 100 } } } });
    t.script({ initialize: "hang", prompts: {} });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "hello" });
    const failed = await t.until(session.id, (d) => d.session.sidebarState === "error");
    expect(failed.session.status).toContain("did not answer initialize within 100 ms");
    expect(lastReply(failed)).toMatchObject({ stopReason: "error", isGenerating: false });
  });

  test("file requests outside the session's folder are refused; inside it they are served", async () => {
    t = await startSessionServer({ agents: "in-process" });
    const session = await t.newSession();
    writeFileSync(join(session.cwd, "inside.txt"), "in here");
    const outside = join(t.dataDir, "secret.txt");
    writeFileSync(outside, "keep out");
    mkdirSync(join(session.cwd, "sub"), { recursive: true });
    t.script({
      prompts: {
        in: [{ readFile: join(session.cwd, "sub", "..", "inside.txt") }],
        out: [{ readFile: outside }],
        up: [{ readFile: join(session.cwd, "..", "..", "secret.txt") }],
      },
    });
    for (const [text, expected] of [
      ["in", "read: in here"],
      ["out", "refused:"],
      ["up", "refused:"],
    ] as const) {
      await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text });
      const done = await t.until(session.id, (d) => d.conversation.at(-1)?.stopReason === "end_turn" && d.conversation.at(-2)?.text === text);
      expect(lastReply(done)!.text).toStartWith(expected);
      expect(lastReply(done)!.text).not.toContain("keep out");
    }
  });

  test("a graceful stop mid-turn leaves the reply for the restart to mark interrupted, not failed", async () => {
    t = await startSessionServer({ agents: "in-process" });
    // Still streaming when the server stops: the agent waits for a gate that is never opened.
    t.script({ prompts: { long: [{ chunk: "the first part" }, { gate: "never" }] } });
    const session = await t.newSession();
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "long" });
    await t.until(session.id, (d) => lastReply(d)?.text === "the first part");
    const dataDir = t.dataDir;
    await t.server.stop();
    const again = await startSessionServer({ agents: "in-process", dataDir });
    const cleanupFirst = t.cleanup;
    t = {
      ...again,
      cleanup: async () => {
        await again.cleanup();
        await cleanupFirst();
      },
    };
    const after = await t.detail(session.id);
    expect(lastReply(after)).toMatchObject({ text: "the first part", isGenerating: false, stopReason: "interrupted" });
    expect(after.session).toMatchObject({ sidebarState: "idle", status: "the turn was interrupted by a server restart", hasUnreadError: false });
  });

  test("a long conversation reads back page by page to the first message", async () => {
    t = await startSessionServer({ agents: "in-process" });
    const session = await t.newSession();
    for (let index = 0; index < 12; index++) await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: `message ${index}` });
    await t.until(session.id, (d) => d.conversation.length >= 5 && idle(d) && d.session.latestAttentionSequence === 12, 20_000);
    const texts: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const page = await t.detail(session.id, `?limit=5${before ? `&before=${before}` : ""}`);
      texts.unshift(...page.conversation.map((item) => item.text));
      before = page.hasMore ? page.nextBefore : null;
      pages++;
    } while (before);
    expect(pages).toBe(5);
    expect(texts).toHaveLength(24);
    expect(texts[0]).toBe("message 0");
    expect(texts.at(-1)).toBe("echo message 11");
  });
});

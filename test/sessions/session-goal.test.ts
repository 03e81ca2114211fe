import { afterEach, describe, expect, test } from "bun:test";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { Goal, Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { lastReply, startSessionServer, type SessionBody, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

describe("goals and token budgets", () => {
  test("a spent budget cancels the turn, pauses the queue and says so; raising it lets the queue go on", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    t.script({
      prompts: {
        // The budget is spent once the next prompt waits behind this turn (a prompt sent would resume the queue).
        big: [
          { usage: { used: 400, size: 10_000 } },
          { chunk: "working" },
          { gate: "spend" },
          { usage: { used: 1_600, size: 10_000 } },
          { waitForCancel: true },
        ],
        next: [{ chunk: "next done" }, { turnUsage: { inputTokens: 50, outputTokens: 25, totalTokens: 75 } }],
      },
    });
    const session = await t.newSession();
    const set = await t.json<unknown>("PUT", `/v1/sessions/${session.id}/goal`, { objective: "Ship it", tokenBudget: 1_000 });
    expect(set.status).toBe(200);
    assertMatchesSchema(Goal, set.body);
    expect(set.body).toMatchObject({ objective: "Ship it", status: "active", activity: "idle", tokenBudget: 1_000, tokensUsed: 0 });

    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "big" });
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "next" });
    await t.until(session.id, (d) => lastReply(d)?.text === "working" && d.promptQueue.length === 1);
    t.agents.openGate("spend");
    const spent = await t.until(session.id, (d) => lastReply(d)?.stopReason === "cancelled" && d.session.sidebarState === "idle");
    assertMatchesSchema(SessionDetail, spent);
    expect(lastReply(spent)?.text).toBe("working");
    expect(spent.goal).toMatchObject({ status: "budget_exhausted", activity: "idle", tokensUsed: 1_600 });
    expect(spent.goal!.timeUsedSeconds).toBeGreaterThan(0);
    expect(spent.session.queuePaused).toBe(true);
    expect(spent.session.status).toContain("token budget is spent (1600 of 1000 tokens)");
    expect(spent.promptQueue.map((prompt) => prompt.text)).toEqual(["next"]);
    // The queue stays paused: an hour on, every timer the server set has fired, and nothing started.
    await clock.advance(60 * 60_000);
    expect((await t.detail(session.id)).promptQueue.map((prompt) => prompt.text)).toEqual(["next"]);

    const raised = await t.json<{ status: string; tokensUsed: number }>("PUT", `/v1/sessions/${session.id}/goal`, { objective: "Ship it", tokenBudget: 5_000 });
    expect(raised.body).toMatchObject({ status: "active", tokensUsed: 1_600 });
    const resumed = await t.until(session.id, (d) => lastReply(d)?.text === "next done" && !lastReply(d)?.isGenerating);
    expect(resumed.session.queuePaused).toBe(false);
    // The hour stopped the idle agent, which cannot load its session: the conversation was handed to the next one.
    expect(resumed.session.status).toContain("was handed to the agent with this prompt");
    // The turn reported 75 tokens; the context did not grow in it, so the report is what counts.
    expect(resumed.goal).toMatchObject({ status: "active", tokensUsed: 1_675 });

    const events = await t.json<Array<{ kind: string; payload: { goal?: { status: string } | null; item?: { role: string; text: string } } }>>(
      "GET",
      `/v1/sessions/${session.id}/events?limit=1000`,
    );
    const goals = events.body.filter((event) => event.kind === "session.goal").map((event) => event.payload.goal?.status);
    expect(goals).toContain("budget_exhausted");
    // The queue stayed paused, nothing started on its own: in the session's ordered events the next
    // prompt's turn begins only after the budget was raised.
    const goalAt = (status: string, from: number) =>
      events.body.findIndex((event, index) => index > from && event.kind === "session.goal" && event.payload.goal?.status === status);
    const raisedAt = goalAt("active", goalAt("budget_exhausted", -1));
    const nextAt = events.body.findIndex((event) => event.kind === "session.message.created" && event.payload.item?.text === "next");
    expect(raisedAt).toBeGreaterThan(0);
    expect(nextAt).toBeGreaterThan(raisedAt);
  });

  test("removing the goal resumes a paused queue; a new objective counts from zero; bad input changes nothing", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({ prompts: { big: [{ gate: "spend" }, { usage: { used: 900, size: 10_000 } }, { chunk: "done" }], after: [{ chunk: "after done" }] } });
    const session = await t.newSession();
    await t.json("PUT", `/v1/sessions/${session.id}/goal`, { objective: "First", tokenBudget: 500 });
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "big" });
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "after" });
    await t.until(session.id, (d) => d.session.sidebarState === "working" && d.promptQueue.length === 1);
    t.agents.openGate("spend");
    const spent = await t.until(session.id, (d) => d.goal?.status === "budget_exhausted" && d.session.sidebarState === "idle");
    expect(spent.session.queuePaused).toBe(true);
    expect(spent.promptQueue.map((prompt) => prompt.text)).toEqual(["after"]);

    for (const body of [{}, { objective: "" }, { objective: "x", tokenBudget: 0 }, { objective: "x", tokenBudget: 1.5 }]) {
      const refused = await t.json<{ error: string }>("PUT", `/v1/sessions/${session.id}/goal`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBeString();
    }
    expect((await t.detail(session.id)).goal).toMatchObject({ objective: "First", tokensUsed: 900, status: "budget_exhausted" });
    expect((await t.json("PUT", "/v1/sessions/ses_nope/goal", { objective: "x" })).status).toBe(404);

    const removed = await t.json<SessionBody>("DELETE", `/v1/sessions/${session.id}/goal`);
    expect(removed.status).toBe(200);
    assertMatchesSchema(Session, removed.body);
    const resumed = await t.until(session.id, (d) => lastReply(d)?.text === "after done" && !lastReply(d)?.isGenerating);
    expect(resumed.goal).toBeNull();
    expect(resumed.session.queuePaused).toBe(false);
    expect((await t.json("DELETE", `/v1/sessions/${session.id}/goal`)).status).toBe(404);

    await t.json("PUT", `/v1/sessions/${session.id}/goal`, { objective: "Second", tokenBudget: 10 });
    const other = await t.json<{ tokensUsed: number; status: string; tokenBudget: number | null }>("PUT", `/v1/sessions/${session.id}/goal`, {
      objective: "Third",
    });
    expect(other.body).toMatchObject({ tokensUsed: 0, status: "active", tokenBudget: null });
  });
});

/**
 * What the real agents' whole turns showed (issue 26), kept fixed with the scripted agent: text after a
 * tool call stays its own paragraph, a permission question carries its tool call, a question ends with
 * an event whatever ends it, usage only grows and an unknown count is null, trouble the agent logs is
 * said at once, and a crash names how the agent ended.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { PendingQuestion, SessionDetail } from "../../src/schemas/sessions.ts";
import { TranscriptDetailsPage } from "../../src/schemas/transcript.ts";
import { idle, lastReply, SCRIPTED_AGENT, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

type Page = Static<typeof TranscriptDetailsPage>;
type Events = Array<Static<typeof EventRecord>>;

let t: SessionTestServer;
/** The server of the tests that need no options nor processes: each makes its own session, writes its script and asserts only on that. */
let shared: SessionTestServer | undefined;
afterEach(async () => {
  if (t !== shared) await t.cleanup();
});
afterAll(async () => {
  await shared?.cleanup();
});

async function sharedServer(): Promise<SessionTestServer> {
  shared ??= await startSessionServer({ agents: "in-process" });
  return shared;
}

const WRITE_CALL = {
  toolCallId: "call-write",
  kind: "edit" as const,
  content: [{ type: "diff" as const, path: "/work/hello.txt", oldText: null, newText: "hello\n" }],
  rawInput: { file_path: "/work/hello.txt", content: "hello\n" },
  locations: [{ path: "/work/hello.txt" }],
};

async function prompt(text: string, sessionId: string): Promise<void> {
  const sent = await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text });
  expect(sent.status).toBe(201);
}

async function sessionEvents(sessionId: string): Promise<Events> {
  const page = await t.json<Events>("GET", `/v1/sessions/${sessionId}/events?limit=1000`);
  expect(page.status).toBe(200);
  return page.body;
}

describe("a real agent's turn, as the scripted agent replays it", () => {
  test("text after a tool call is a paragraph of its own; each call and thought says where in the text it came", async () => {
    t = await sharedServer();
    t.script({
      prompts: {
        create: [
          { chunk: "I'll create the file **hello.txt** now." },
          { toolCall: { id: "w1", title: "Write hello.txt", kind: "edit" } },
          { chunk: "Writing." },
          { toolUpdate: { id: "w1", status: "in_progress" } },
          { chunk: " Still writing." },
          // The call's end: what follows is the model's next answer (OpenCode glued "…response.## Done").
          { toolUpdate: { id: "w1", status: "completed" } },
          { chunk: "## Done\n" },
          { chunk: "- hello.txt\n" },
          { thought: "Anything else?" },
          { chunk: "\nThat is all." },
        ],
      },
    });
    const session = await t.newSession();
    await prompt("create", session.id);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    const reply = lastReply(done)!;
    expect(reply.text).toBe("I'll create the file **hello.txt** now.\n\nWriting. Still writing.\n\n## Done\n- hello.txt\n\nThat is all.");
    const page = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details`)).body;
    assertMatchesSchema(TranscriptDetailsPage, page);
    const offsets = page.entries.map((entry) => [entry.key, entry.payload.textOffset]);
    const firstText = "I'll create the file **hello.txt** now.";
    expect(offsets).toEqual([
      ["tool:w1", firstText.length],
      ["thought:1", `${firstText}\n\nWriting. Still writing.\n\n## Done\n- hello.txt\n`.length],
    ]);
    // A client splitting the text at the offsets gets the reply in the order it happened.
    expect(reply.text.slice(0, firstText.length)).toBe(firstText);
  });

  test("a plan update is a call of its own in the reply (the agents' plan tools send the plan instead of their call); a thought starts at its first words", async () => {
    t = await sharedServer();
    const steps = [
      { content: "Step one", priority: "medium" as const, status: "completed" as const },
      { content: "Step two", priority: "medium" as const, status: "in_progress" as const },
    ];
    t.script({
      prompts: {
        plan: [
          { thought: "\n\n" },
          { thought: "\n\n**Planning** the steps" },
          { chunk: "Planning." },
          // Claude's task tools send the plan once per task created, one update after another: one card.
          { plan: [{ ...steps[0]!, status: "pending" }] },
          { plan: steps.slice(0, 1) },
          { chunk: "Planned." },
          { plan: steps },
        ],
      },
    });
    const session = await t.newSession();
    await prompt("plan", session.id);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(done)!.text).toBe("Planning.\n\nPlanned.");
    expect(done.sessionPlan?.entries.map((entry) => entry.content)).toEqual(["Step one", "Step two"]);
    const page = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${lastReply(done)!.id}/details`)).body;
    assertMatchesSchema(TranscriptDetailsPage, page);
    const planCall = (toolCallId: string, entries: typeof steps, checklist: string, textOffset: number): Page["entries"][number]["payload"] => ({
      type: "tool_call",
      toolCallId,
      title: "Plan",
      kind: "think",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: checklist } }],
      locations: [],
      rawInput: { entries },
      rawOutput: null,
      textOffset,
    });
    expect(page.entries.map((entry) => entry.payload)).toEqual([
      { type: "thought", text: "**Planning** the steps", textOffset: 0 },
      planCall("plan-1", steps.slice(0, 1), "- [x] Step one", "Planning.".length),
      planCall("plan-2", steps, "- [x] Step one\n- [ ] Step two (in progress)", "Planning.\n\nPlanned.".length),
    ]);
  });

  test("what the agent says about itself (its harness's selfNotice) is the session's notice, not reply text", async () => {
    t = await startSessionServer({
      agents: "in-process",
      config: {
        harnesses: [
          { id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT, quirks: { selfNotice: "^Falling back from WebSockets to HTTPS transport\\b" } },
        ],
      },
    });
    const notice = "Falling back from WebSockets to HTTPS transport. unexpected status 503 Service Unavailable";
    t.script({
      prompts: { hi: [{ stderr: "2026-11-25T18:40:44.123456Z  WARN codex_api: failed to connect to websocket" }, { chunk: notice }, { chunk: "Over HTTPS." }] },
    });
    const session = await t.newSession();
    await prompt("hi", session.id);
    const done = await t.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect(lastReply(done)!.text).toBe("Over HTTPS.");
    expect(done.session.status).toBe(`the agent reports: ${notice}`);
  });

  test("a permission question carries the call it asks about, which is in the details from the moment it is asked", async () => {
    t = await sharedServer();
    t.script({
      prompts: {
        write: [
          { chunk: "Writing it." },
          {
            permission: {
              title: "Write hello.txt",
              toolCall: WRITE_CALL,
              options: [
                { optionId: "allow", name: "Allow", kind: "allow_once" },
                { optionId: "always", name: "Allow for this session", kind: "allow_always" },
                { optionId: "reject", name: "Reject", kind: "reject_once" },
              ],
            },
          },
        ],
      },
    });
    const session = await t.newSession();
    await prompt("write", session.id);
    const asking = await t.until(session.id, (d) => d.pendingQuestion !== null);
    assertMatchesSchema(SessionDetail, asking);
    const question = asking.pendingQuestion!;
    assertMatchesSchema(PendingQuestion, question);
    expect(question.toolCall).toMatchObject({
      type: "tool_call",
      toolCallId: "call-write",
      title: "Write hello.txt",
      kind: "edit",
      status: "pending",
      content: WRITE_CALL.content,
      rawInput: WRITE_CALL.rawInput,
      locations: WRITE_CALL.locations,
      textOffset: "Writing it.".length,
    });
    // The options say what they do in words, not ACP's kinds.
    expect(question.questions[0]!.options.map((option) => [option.label, option.description])).toEqual([
      ["Allow", "Allow once"],
      ["Allow for this session", "Always allow"],
      ["Reject", "Reject"],
    ]);
    // The call is in the reply's details while the question waits, not only after it is answered.
    const reply = lastReply(asking)!;
    const page = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details`)).body;
    expect(page.entries.map((entry) => entry.payload)).toEqual([question.toolCall!]);

    const answered = await t.json("POST", `/v1/sessions/${session.id}/questions/${question.questionId}/answer`, {
      answers: { permission: { optionIds: ["reject"] } },
    });
    expect(answered.status).toBe(200);
    const done = await t.until(session.id, idle);
    expect(lastReply(done)!.text).toBe("Writing it.\n\nchose reject");
    // The agent never said more of the refused call (as Qwen Code does): it failed rather than stay pending.
    const after = (await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${reply.id}/details`)).body;
    expect(after.entries.map((entry) => entry.payload)).toEqual([
      { ...question.toolCall!, status: "failed", permission: { optionId: "reject", kind: "reject_once", outcome: "selected", answeredAt: expect.any(String) } },
    ]);
  });

  test("the answer to a permission question is kept on its call (chosen with its kind, or dismissed), and a restart keeps it", async () => {
    t = await startSessionServer({ agents: "in-process" });
    t.script({
      prompts: {
        "*": [
          {
            permission: {
              title: "Write hello.txt",
              toolCall: WRITE_CALL,
              options: [
                { optionId: "allow", name: "Allow", kind: "allow_once" },
                { optionId: "reject", name: "Reject", kind: "reject_once" },
              ],
            },
          },
        ],
      },
    });
    const session = await t.newSession();
    const callOf = async (itemId: string) => {
      const page = await t.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${itemId}/details`);
      assertMatchesSchema(TranscriptDetailsPage, page.body);
      return page.body.entries.find((entry) => entry.key === "tool:call-write")!;
    };
    const askAndSettle = async (text: string, settle: (questionId: string) => Promise<unknown>) => {
      await prompt(text, session.id);
      const asking = await t.until(session.id, (d) => d.pendingQuestion !== null);
      assertMatchesSchema(SessionDetail, asking);
      // The options carry ACP's kind, so a client picks the safe one by what it does, not by its words.
      expect(asking.pendingQuestion!.questions[0]!.options.map((option) => option.kind)).toEqual(["allow_once", "reject_once"]);
      expect((await callOf(lastReply(asking)!.id)).payload).not.toHaveProperty("permission");
      await settle(asking.pendingQuestion!.questionId);
      const done = await t.until(session.id, idle);
      const reply = lastReply(done)!;
      const call = await callOf(reply.id);
      // The change is announced like any other of the call's: its event carries the entry's new revision.
      const announced = (await sessionEvents(session.id)).filter((event) => event.kind === "session.transcript").map((event) => event.payload);
      expect(announced).toContainEqual({ itemId: reply.id, key: call.key, position: call.position, revision: call.revision });
      return { itemId: reply.id, permission: call.payload.type === "tool_call" ? call.payload.permission : undefined };
    };
    const allowed = await askAndSettle("first", (questionId) =>
      t.json("POST", `/v1/sessions/${session.id}/questions/${questionId}/answer`, { answers: { permission: { optionIds: ["allow"] } } }),
    );
    expect(allowed.permission).toEqual({ optionId: "allow", kind: "allow_once", outcome: "selected", answeredAt: expect.any(String) });
    const dismissed = await askAndSettle("second", (questionId) => t.json("POST", `/v1/sessions/${session.id}/questions/${questionId}/dismiss`));
    expect(dismissed.permission).toEqual({ optionId: null, kind: null, outcome: "dismissed", answeredAt: expect.any(String) });

    const restarted = await t.restart();
    try {
      for (const { itemId, permission } of [allowed, dismissed]) {
        const page = await restarted.json<Page>("GET", `/v1/sessions/${session.id}/transcript/${itemId}/details`);
        assertMatchesSchema(TranscriptDetailsPage, page.body);
        expect(page.body.entries.find((entry) => entry.key === "tool:call-write")?.payload).toMatchObject({ permission: permission! });
      }
    } finally {
      await restarted.stop();
    }
  });

  test("a question ends with an event when its agent dies, and a late answer is refused", async () => {
    t = await startSessionServer();
    // The agent is killed while its question waits.
    t.script({
      prompts: { ask: [{ kill: "SIGKILL", afterGate: "kill" }, { permission: { title: "Run rm", options: [{ optionId: "allow", name: "Allow" }] } }] },
    });
    const session = await t.newSession();
    await prompt("ask", session.id);
    const asking = await t.until(session.id, (d) => d.pendingQuestion !== null);
    const questionId = asking.pendingQuestion!.questionId;
    t.agents.openGate("kill");
    const failed = await t.until(session.id, (d) => d.session.sidebarState === "error");
    expect(failed.pendingQuestion).toBeNull();
    expect(failed.session.status).toContain("signal SIGKILL");
    // A client that follows events was told the question is gone.
    const questions = (await sessionEvents(session.id)).filter((event) => event.kind === "session.question").map((event) => event.payload);
    expect(questions.at(-1)).toEqual({ question: null });
    const late = await t.json<{ error: string }>("POST", `/v1/sessions/${session.id}/questions/${questionId}/answer`, {
      answers: { permission: { optionIds: ["allow"] } },
    });
    expect(late.status).toBe(404);
    expect(late.body.error).toContain(questionId);
  });

  test("a crash names how the agent ended and what it last logged, without its escapes", async () => {
    t = await startSessionServer();
    t.script({ prompts: { crash: [{ stderr: "\u001b[31mfatal: out of memory\u001b[0m" }, { kill: "SIGSEGV" }] } });
    const session = await t.newSession();
    await prompt("crash", session.id);
    const failed = await t.until(session.id, (d) => d.session.sidebarState === "error");
    expect(failed.session.status).toBe("the agent stopped unexpectedly (signal SIGSEGV); it last logged: fatal: out of memory");
  });

  /** A server whose scripted harness has these quirks, and whose agent is stopped when idle for a minute of `clock`; its agents in this process unless said. */
  const quirkyServer = (clock: ManualClock, quirks: Record<string, boolean>, agents: "in-process" | "processes" = "in-process") =>
    startSessionServer({
      agents,
      config: { agentIdleMinutes: 1, harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT, quirks }] },
      tuning: { clock },
    });
  const COST_SCRIPT = {
    prompts: {
      quiet: [{ chunk: "no counts" }, { usage: { used: 500, size: 200_000, cost: { amount: 0.01, currency: "USD" } } }],
      more: [{ usage: { used: 900, size: 200_000, cost: { amount: 0.015, currency: "USD" } } }, { chunk: "more" }],
      counted: [
        { usage: { used: 300, size: 1_000_000, cost: { amount: 0.004, currency: "USD" } } },
        { usage: { used: 700, size: 1_000_000, cost: { amount: 0.02, currency: "USD" } } },
        { turnUsage: { inputTokens: 600, outputTokens: 40, totalTokens: 640 } },
        { chunk: "counted" },
      ],
    },
  };
  /** Two turns on one agent process, an idle stop, and a turn on a new process; the session after each. */
  async function costTurns(clock: ManualClock) {
    t.script(COST_SCRIPT);
    const session = await t.newSession();
    expect(session.usage).toMatchObject({ inputTokens: null, outputTokens: null, totalTokens: null, costAmount: null });
    await prompt("quiet", session.id);
    await prompt("more", session.id);
    const first = await t.until(session.id, (d) => idle(d) && d.conversation.length === 4);
    // Idle for the idle time: the agent is stopped, and the next turn starts a new process.
    await clock.advance(60_000);
    await prompt("counted", session.id);
    const second = await t.until(session.id, (d) => idle(d) && d.conversation.length === 6);
    assertMatchesSchema(SessionDetail, second);
    return { first: first.session.usage, second: second.session.usage };
  }

  test("usage: an unknown token count is null, a reported one is summed; the session's cost (ACP's meaning) never goes down", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, {});
    const { first, second } = await costTurns(clock);
    // The agent reports the session's cost so far: 0.015 in all, not 0.025.
    expect(first).toMatchObject({ used: 900, totalTokens: null, inputTokens: null, costAmount: 0.015, costCurrency: "USD" });
    // A new process that reports less (0.004) does not lower it; more (0.02) raises it.
    expect(second).toMatchObject({ used: 700, size: 1_000_000, inputTokens: 600, outputTokens: 40, totalTokens: 640, costAmount: 0.02 });
  });

  test("usage: an agent whose cost counts per process (claude-agent-acp) adds each new process's count", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, { costPerProcess: true });
    const { first, second } = await costTurns(clock);
    expect(first.costAmount).toBe(0.015);
    expect(second.costAmount).toBeCloseTo(0.035, 10);
  });

  test("usage: counts per model call (Qwen's _meta.usage) are summed as they come and the turn's answer adds nothing more; an agent that counts only the last call is not counted", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, { turnTokensOfLastCall: true });
    t.script({
      prompts: {
        calls: [
          { chunk: "Writing." },
          { callUsage: { inputTokens: 720, outputTokens: 20, totalTokens: 740 } },
          { chunk: "Done." },
          { callUsage: { inputTokens: 740, outputTokens: 10, totalTokens: 750 } },
          { turnUsage: { inputTokens: 740, outputTokens: 10, totalTokens: 750 } },
        ],
        last: [{ chunk: "only the answer" }, { turnUsage: { inputTokens: 740, outputTokens: 10, totalTokens: 750 } }],
      },
    });
    const session = await t.newSession();
    await prompt("calls", session.id);
    const counted = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
    expect(lastReply(counted)!.text).toBe("Writing.Done.");
    expect(counted.session.usage).toMatchObject({ inputTokens: 1460, outputTokens: 30, totalTokens: 1490 });
    await prompt("last", session.id);
    const after = await t.until(session.id, (d) => idle(d) && d.conversation.length === 4);
    expect(after.session.usage).toMatchObject({ inputTokens: 1460, outputTokens: 30, totalTokens: 1490 });
  });

  test("history an agent replays after its load answered (Gemini) never lands in the new reply, restart after restart", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, {});
    // The turn lasts until the replay has all been sent, so replayed chunks would arrive while the reply streams.
    t.script({ loadSession: true, historyAfterLoad: true, prompts: { "*": [{ awaitReplay: true }, { describePrompt: true }] } });
    const session = await t.newSession();
    for (let round = 1; round <= 5; round++) {
      await prompt(`turn ${round}`, session.id);
      const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === round * 2);
      expect(lastReply(done)!.text).toBe(`text:turn ${round}`);
      expect(done.session.status ?? "", "the agent loaded its session").not.toContain("could not load");
      // Idle for the idle time: the next turn starts a new agent, which loads the session.
      await clock.advance(60_000);
    }
  });

  test("an agent stopped when idle finishes its writes before the next one starts and loads them", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, {}, "processes");
    t.script({ loadSession: true, flushOnExitMs: 400, prompts: {} });
    const session = await t.newSession();
    await prompt("first", session.id);
    await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
    // Only the first agent is slow to exit: the next writes at once, so the server's stop waits for none.
    t.script({ loadSession: true, prompts: {} });
    // Idle stop, and at once a new prompt: the new agent must find what the old one writes as it exits.
    await clock.advance(60_000);
    await prompt("second", session.id);
    const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === 4);
    expect(lastReply(done)!.text).toBe("echo second");
    expect(done.session.status ?? "", "the agent loaded its session").not.toContain("could not load");
  });

  test("an agent that reads files itself (Gemini) is not offered fs/read_text_file; its turn counts in _meta.quota are counted", async () => {
    const clock = new ManualClock();
    t = await quirkyServer(clock, { readsFilesItself: true });
    t.script({ quotaUsage: true, prompts: { "*": [{ describeClient: true }, { turnUsage: { inputTokens: 10_100, outputTokens: 100, totalTokens: 0 } }] } });
    const session = await t.newSession();
    await prompt("what can you use", session.id);
    const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
    expect(JSON.parse(lastReply(done)!.text)).toMatchObject({ fs: { readTextFile: false, writeTextFile: true }, terminal: true });
    expect(done.session.usage).toMatchObject({ inputTokens: 10_100, outputTokens: 100, totalTokens: 10_200 });
  });

  test("trouble the agent logs during a turn is the status at once, without escapes; the silence notice names only this turn's lines", async () => {
    t = await startSessionServer({ agents: "in-process", tuning: { modules: { sessions: { silenceNoticeMs: 300 } } } });
    t.script({
      prompts: {
        old: [{ stderr: "an unrelated line from long ago" }, { chunk: "fine" }],
        retry: [{ stderr: "\u001b[33mstream error: 429 Too Many Requests; retrying 1/5 in 2s…\u001b[0m" }, { gate: "retried" }, { chunk: "done" }],
        quiet: [{ gate: "spoke" }, { chunk: "late" }],
      },
    });
    const session = await t.newSession();
    await prompt("old", session.id);
    await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
    await prompt("retry", session.id);
    const retrying = await t.until(session.id, (d) => (d.session.status ?? "").startsWith("the agent reports"), 5_000);
    expect(retrying.session.status).toBe("the agent reports: stream error: 429 Too Many Requests; retrying 1/5 in 2s…");
    t.agents.openGate("retried");
    await t.until(session.id, (d) => idle(d) && d.conversation.length === 4);
    await prompt("quiet", session.id);
    const quiet = await t.until(session.id, (d) => (d.session.status ?? "").startsWith("no word from the agent"), 5_000);
    expect(quiet.session.status).not.toContain("unrelated");
    expect(quiet.session.status).toMatch(/^no word from the agent for \d+ s$/);
    t.agents.openGate("spoke");
    await t.until(session.id, (d) => idle(d) && d.conversation.length === 6);
  });
});

test("a server that stops lets its agents finish their writes (Claude Code writes a turn's transcript just after it) before it ends them", async () => {
  t = await startSessionServer();
  t.script({ flushOnExitMs: 400, prompts: { "*": [{ chunk: "ok" }] } });
  const session = await t.newSession();
  await prompt("hi", session.id);
  await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
  const started = performance.now();
  await t.stop();
  expect(existsSync(join(t.stateDir, "exited-cleanly"))).toBe(true);
  // Within the grace period, not a moment more than the agent needed.
  expect(performance.now() - started).toBeLessThan(3_000);
});

test("the stream of events keeps every usage figure within its schema", async () => {
  t = await sharedServer();
  t.script({ prompts: { "*": [{ usage: { used: 1, size: 2 } }, { chunk: "ok" }] } });
  const session = await t.newSession();
  await prompt("hi", session.id);
  await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
  const usage = await until(
    async () => (await sessionEvents(session.id)).filter((event) => event.kind === "session.usage"),
    (found) => found.length > 0,
  );
  for (const event of usage) assertMatchesSchema(EventRecord, event);
  expect(usage.at(-1)!.payload).toMatchObject({ usage: { used: 1, size: 2, totalTokens: null } });
});

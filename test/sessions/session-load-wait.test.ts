import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { lastReply, type DetailBody } from "./session-helpers.ts";
import { cleanUpAfterEach, quirkServer, type QuirkServer } from "./quirk-server.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// Gemini CLI 0.61 names a session's file by the UTC minute the session began, and each load starts a
// recording under its own minute's name: a load in that first minute wipes the session (issue 30's CI
// run lost one that way). The scripted agent does the same. Time is the test's: the server runs on a
// ManualClock, and the agent reads the same time from a file, so a period passes when the test says.

cleanUpAfterEach();

const PERIOD_MS = 60_000;
const script = { loadSession: true, loadWipesInStartPeriodMs: PERIOD_MS, prompts: {} };
const WAITING = /^waiting \d+ s before the agent starts: it would wipe its session/;

/** The server's clock, whose time the scripted agent also reads ($SCRIPTED_AGENT_CLOCK); it starts at a period's start. */
class SharedClock extends ManualClock {
  private readonly dir = makeTempDir("atrium-clock-");
  readonly file = join(this.dir.path, "now");

  constructor() {
    super();
    writeFileSync(this.file, String(this.now()));
  }

  /** The agent sees the new time before any timer fires on the way to it. */
  override async advance(ms: number): Promise<void> {
    writeFileSync(this.file, String(this.now() + ms));
    await super.advance(ms);
  }

  remove(): void {
    this.dir.remove();
  }
}

/**
 * A server on a shared clock whose harness is the scripted agent with that wipe (and, with `quirks`,
 * Atrium told of it). Its agents run in this process: the wait is about when Atrium starts one, which
 * the count of starts tells as well as a process list.
 */
async function clockedServer(extraScript: object = {}, quirks?: Record<string, unknown>): Promise<{ s: QuirkServer; clock: SharedClock }> {
  const clock = new SharedClock();
  const s = await quirkServer(
    { ...script, ...extraScript },
    { agents: "in-process", quirks, env: { SCRIPTED_AGENT_CLOCK: clock.file }, server: { tuning: { clock } } },
  );
  expect(clock.now() % PERIOD_MS).toBe(0);
  return { s, clock };
}

/** A session whose agent session began in this period (a turn made it), on a server started again since, in the same period. */
async function restartedInItsFirstPeriod(s: QuirkServer): Promise<string> {
  const session = await s.newSession();
  const first = await s.turn(session.id, "one");
  expect(lastReply(first)).toMatchObject({ text: "echo one", stopReason: "end_turn" });
  expect(s.scripted.started).toBe(1);
  await s.restart();
  return session.id;
}

/** Agents started since the restart (the one before it made the first turn). */
const startedSinceRestart = (s: QuirkServer) => s.scripted.started - 1;

/** The session once its second turn has ended. */
const secondTurnEnded = (s: QuirkServer, id: string): Promise<DetailBody> =>
  s.until(id, (d) => d.conversation.length >= 4 && !lastReply(d)!.isGenerating && d.session.sidebarState !== "working");

/** Sends the next prompt and waits until the session says it waits; no agent has started meanwhile. */
async function waitingToLoad(s: QuirkServer, id: string): Promise<void> {
  await s.prompt(id, "two");
  await s.until(id, (d) => WAITING.test(d.session.status ?? ""));
  expect(startedSinceRestart(s)).toBe(0);
}

describe("an agent that wipes a session it loads in the period the session began in (Gemini)", () => {
  test("the scripted agent does wipe it: without the quirk, the session is lost", async () => {
    const { s, clock } = await clockedServer();
    try {
      const id = await restartedInItsFirstPeriod(s);
      const next = await s.turn(id, "two");
      expect(next.session.status).toContain("could not load its earlier session (Internal error: No previous sessions found for this project.)");
    } finally {
      clock.remove();
    }
  });

  test("the next start waits for the next period, says so meanwhile, and the session loads", async () => {
    const { s, clock } = await clockedServer({}, { loadWipesInStartPeriodMs: PERIOD_MS });
    try {
      const id = await restartedInItsFirstPeriod(s);
      await waitingToLoad(s, id);
      // A millisecond short of the next period the wait goes on; at the period's start the agent starts and loads.
      await clock.advance(PERIOD_MS - 1);
      expect((await s.detail(id)).session.status).toMatch(WAITING);
      expect(startedSinceRestart(s)).toBe(0);
      await clock.advance(1);
      const ended = await secondTurnEnded(s, id);
      expect(lastReply(ended)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
      expect(ended.session.status).toBeNull();
    } finally {
      clock.remove();
    }
  });

  test("a config change while the start waits joins that start: one agent, the turn and the change both done", async () => {
    const { s, clock } = await clockedServer({ models: true }, { loadWipesInStartPeriodMs: PERIOD_MS });
    try {
      const id = await restartedInItsFirstPeriod(s);
      await waitingToLoad(s, id);
      const set = s.t.json<{ configOptions: Array<{ id: string; currentValue: string }> }>("POST", `/v1/sessions/${id}/config`, {
        configId: "model",
        value: "large",
      });
      // The change waits on the same start: it is answered once the period has passed and the agent loaded.
      await s.until(id, (d) => WAITING.test(d.session.status ?? ""));
      await clock.advance(PERIOD_MS);
      const changed = await set;
      expect(changed.status).toBe(200);
      expect(changed.body.configOptions.find((option) => option.id === "model")?.currentValue).toBe("large");
      const ended = await secondTurnEnded(s, id);
      expect(lastReply(ended)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
      expect(ended.session.status).toBeNull();
      expect(startedSinceRestart(s)).toBe(1);
    } finally {
      clock.remove();
    }
  });

  test("a cancel ends the wait at once, and no agent was started", async () => {
    const { s, clock } = await clockedServer({}, { loadWipesInStartPeriodMs: PERIOD_MS });
    try {
      const id = await restartedInItsFirstPeriod(s);
      await waitingToLoad(s, id);
      expect((await s.t.json("POST", `/v1/sessions/${id}/cancel`)).status).toBe(200);
      const ended = await s.until(id, (d) => d.session.sidebarState !== "working" && !lastReply(d)!.isGenerating);
      expect(lastReply(ended)!.stopReason).toBe("cancelled");
      expect(ended.session.status ?? "").not.toMatch(WAITING);
      expect(startedSinceRestart(s)).toBe(0);
    } finally {
      clock.remove();
    }
  });
});

describe("an agent that keeps an empty recording after a load (Gemini 0.61, issue 36)", () => {
  test("three restarts, the first in the session's first minute: every earlier prompt reaches the agent, natively or by handoff", async () => {
    const { s, clock } = await clockedServer(
      { loadLeavesEmptyRecording: true, prompts: { "*": [{ describePrompt: true }] } },
      { loadWipesInStartPeriodMs: PERIOD_MS },
    );
    try {
      const session = await s.newSession();
      expect(lastReply(await s.turn(session.id, "one"))!.text).toBe("text:one");
      // Restart 1, in the session's first minute: the start waits for the next one, and the agent loads.
      await s.restart();
      await waitingToLoad(s, session.id);
      await clock.advance(PERIOD_MS);
      const second = await secondTurnEnded(s, session.id);
      expect(lastReply(second)!.text).toBe("text:two");
      expect(second.session.status).toBeNull();
      // Restart 2: the agent's recording is empty now and its load fails; the conversation is handed over.
      await s.restart();
      const third = await s.turn(session.id, "three");
      const [history, prompt] = lastReply(third)!.text.split("|");
      expect(prompt).toBe("text:three");
      expect(history).toContain("User:\none\nAssistant:\ntext:one\n");
      expect(history).toContain("User:\ntwo\nAssistant:\ntext:two\n");
      expect(third.session.status).toStartWith("the agent could not load its earlier session (Internal error: No previous sessions found for this project.)");
      expect(third.session.status).toEndWith("the conversation Atrium kept (2 turns) was handed to the agent with this prompt");
      // Restart 3, a minute on: the new agent session (which got the handoff) loads natively.
      await clock.advance(PERIOD_MS);
      await s.restart();
      const fourth = await s.turn(session.id, "four");
      expect(lastReply(fourth)!.text).toBe("text:four");
      expect(fourth.session.status).toBeNull();
    } finally {
      clock.remove();
    }
  });
});

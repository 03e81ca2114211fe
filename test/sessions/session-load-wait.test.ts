import { describe, expect, test } from "bun:test";
import { lastReply, type DetailBody } from "./session-helpers.ts";
import { cleanUpAfterEach, quirkServer, type QuirkServer } from "./quirk-server.ts";

// Gemini CLI 0.61 names a session's file by the UTC minute the session began, and each load starts a
// recording under its own minute's name: a load in that first minute wipes the session (issue 30's CI
// run lost one that way). The scripted agent does the same with a shorter period.

cleanUpAfterEach();

const PERIOD_MS = 6000;
/** Up to three tries of a restart within a period, and a wait of a period: more than the suite's default. */
const TEST_TIMEOUT_MS = 60_000;
const script = { loadSession: true, loadWipesInStartPeriodMs: PERIOD_MS, prompts: {} };
const WAITING = /^waiting \d+ s before the agent starts: it would wipe its session/;

/** Until the start of a period, so that what follows in the test happens within it. */
async function periodStart(): Promise<void> {
  while (Date.now() % PERIOD_MS > 300) await Bun.sleep(25);
}

/**
 * A session whose agent session began in this period (a turn made it), on a server started again
 * since, still in that period. A machine too busy to do that within one period gets another try.
 */
async function restartedInItsFirstPeriod(s: QuirkServer): Promise<{ id: string; periodEnd: number }> {
  for (let attempt = 1; ; attempt++) {
    await periodStart();
    const periodEnd = (Math.floor(Date.now() / PERIOD_MS) + 1) * PERIOD_MS;
    const session = await s.newSession();
    const first = await s.turn(session.id, "one");
    expect(lastReply(first)).toMatchObject({ text: "echo one", stopReason: "end_turn" });
    await s.restart();
    if (Date.now() < periodEnd - 2500) return { id: session.id, periodEnd };
    expect(attempt, "three tries to restart within one period").toBeLessThan(3);
  }
}

/** The statuses the session shows until its turn has ended. */
async function statusesUntilIdle(s: QuirkServer, id: string): Promise<{ seen: Array<string | null>; ended: DetailBody }> {
  const seen: Array<string | null> = [];
  const ended = await s.until(id, (d) => {
    if (seen.at(-1) !== d.session.status) seen.push(d.session.status);
    return d.conversation.length >= 4 && !lastReply(d)!.isGenerating && d.session.sidebarState !== "working";
  });
  return { seen, ended };
}

describe("an agent that wipes a session it loads in the period the session began in (Gemini)", () => {
  test(
    "the scripted agent does wipe it: without the quirk, the session is lost",
    async () => {
      const s = await quirkServer(script);
      const { id } = await restartedInItsFirstPeriod(s);
      const next = await s.turn(id, "two");
      expect(next.session.status).toContain("could not load its earlier session (Internal error: No previous sessions found for this project.)");
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "the next start waits for the next period, says so meanwhile, and the session loads",
    async () => {
      const s = await quirkServer(script, { quirks: { loadWipesInStartPeriodMs: PERIOD_MS } });
      const { id, periodEnd } = await restartedInItsFirstPeriod(s);
      await s.prompt(id, "two");
      const { seen, ended } = await statusesUntilIdle(s, id);
      expect(Date.now()).toBeGreaterThanOrEqual(periodEnd);
      expect(
        seen.some((status) => status !== null && WAITING.test(status)),
        JSON.stringify(seen),
      ).toBe(true);
      expect(lastReply(ended)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
      expect(ended.session.status).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a config change while the start waits joins that start: one agent, the turn and the change both done",
    async () => {
      const s = await quirkServer({ ...script, models: true }, { quirks: { loadWipesInStartPeriodMs: PERIOD_MS } });
      const { id } = await restartedInItsFirstPeriod(s);
      await s.prompt(id, "two");
      await s.until(id, (d) => WAITING.test(d.session.status ?? ""));
      const set = await s.t.json<{ configOptions: Array<{ id: string; currentValue: string }> }>("POST", `/v1/sessions/${id}/config`, {
        configId: "model",
        value: "large",
      });
      expect(set.status).toBe(200);
      expect(set.body.configOptions.find((option) => option.id === "model")?.currentValue).toBe("large");
      const { ended } = await statusesUntilIdle(s, id);
      expect(lastReply(ended)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
      expect(ended.session.status).toBeNull();
      expect(s.agents()).toHaveLength(1);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a cancel ends the wait at once, and no agent was started",
    async () => {
      const s = await quirkServer(script, { quirks: { loadWipesInStartPeriodMs: PERIOD_MS } });
      const { id, periodEnd } = await restartedInItsFirstPeriod(s);
      await s.prompt(id, "two");
      await s.until(id, (d) => WAITING.test(d.session.status ?? ""));
      expect((await s.t.json("POST", `/v1/sessions/${id}/cancel`)).status).toBe(200);
      const ended = await s.until(id, (d) => d.session.sidebarState !== "working" && !lastReply(d)!.isGenerating);
      expect(Date.now()).toBeLessThan(periodEnd);
      expect(lastReply(ended)!.stopReason).toBe("cancelled");
      expect(ended.session.status ?? "").not.toMatch(WAITING);
      expect(s.agents()).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

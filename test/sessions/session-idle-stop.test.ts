import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../helpers/manual-clock.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

// An agent with no turn for `agentIdleMinutes` is stopped; the next prompt starts it again. The clock
// is the test's: time moves when the test says. The agents run in the test's process, which counts them.

const IDLE_MINUTES = 30;
const IDLE_MS = IDLE_MINUTES * 60_000;

let t: SessionTestServer | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

/** The agents the server runs now (started and not stopped). */
const runningAgents = (server: SessionTestServer) => server.agents.running;

async function idleServer(): Promise<{ server: SessionTestServer; clock: ManualClock }> {
  const clock = new ManualClock();
  const server = await startSessionServer({ agents: "in-process", config: { agentIdleMinutes: IDLE_MINUTES }, tuning: { clock } });
  // It loads its session at each start, as the real agents do: nothing is handed over.
  server.script({ loadSession: true, prompts: { wait: [{ chunk: "working" }, { waitForCancel: true }] } });
  t = server;
  return { server, clock };
}

async function turn(server: SessionTestServer, sessionId: string, text: string) {
  await server.json("POST", `/v1/sessions/${sessionId}/prompts`, { text });
  return server.until(sessionId, (detail) => idle(detail) && detail.conversation.length > 0 && lastReply(detail)?.text !== "");
}

test("the agent runs on through the idle time after a turn, is stopped when it passes, and the next prompt starts it again", async () => {
  const { server, clock } = await idleServer();
  const session = await server.newSession();
  await turn(server, session.id, "one");
  expect(runningAgents(server)).toBe(1);

  await clock.advance(IDLE_MS - 1_000);
  expect(runningAgents(server)).toBe(1);
  await clock.advance(1_000);
  await server.until(session.id, () => runningAgents(server) === 0);

  const after = await turn(server, session.id, "two");
  expect(lastReply(after)).toMatchObject({ text: "echo two", stopReason: "end_turn" });
  expect(after.session).toMatchObject({ sidebarState: "idle", status: null });
  expect(runningAgents(server)).toBe(1);
});

test("a new turn starts the idle time again", async () => {
  const { server, clock } = await idleServer();
  const session = await server.newSession();
  await turn(server, session.id, "one");
  await clock.advance(IDLE_MS - 1_000);
  await turn(server, session.id, "two");
  await clock.advance(IDLE_MS - 1_000);
  expect(runningAgents(server)).toBe(1);
  await clock.advance(1_000);
  await server.until(session.id, () => runningAgents(server) === 0);
});

test("an agent in the middle of a turn is never stopped as idle, however long the turn", async () => {
  const { server, clock } = await idleServer();
  const session = await server.newSession();
  await server.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "wait" });
  await server.until(session.id, (detail) => lastReply(detail)?.text === "working");
  await clock.advance(3 * IDLE_MS);
  expect(runningAgents(server)).toBe(1);
  const running = await server.detail(session.id);
  expect(running.session.sidebarState).toBe("working");
  expect(lastReply(running)?.isGenerating).toBe(true);
  expect((await server.json("POST", `/v1/sessions/${session.id}/cancel`)).status).toBe(200);
  await server.until(session.id, (detail) => lastReply(detail)?.isGenerating === false);
});

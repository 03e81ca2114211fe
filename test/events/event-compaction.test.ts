/**
 * A bounded log (issue 27): events past the retention period, or past the size cap, leave the log in
 * the background; a reply's text stays whole (folded from its deltas into its row), a reply being
 * written is never touched, sequences go on where they were, and a cursor behind the horizon is
 * refused 410 with a sentence, never answered with a silent gap.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { readServerDatabase } from "../helpers/test-store.ts";
import { lockDatabase } from "../helpers/locked-database.ts";
import { Health } from "../../src/schemas/system.ts";
import { CursorResponse } from "../../src/schemas/events.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "../sessions/session-helpers.ts";

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

/** Compaction only when the test says so. */
const ON_DEMAND = { compaction: { firstPassMs: 3_600_000 } };
const SECOND_IN_DAYS = 1 / 86_400;
/** Moved on by the tests of a second's retention: the events then are past it. */
const PAST_A_SECOND_MS = 1100;

/** Compaction on demand, and a clock the test moves on (the events are dated by it, and retention reads it). */
function onDemandWith(clock: ManualClock) {
  return { ...ON_DEMAND, clock };
}

async function cursorAndHorizon(): Promise<{ cursor: number; horizon: number }> {
  const { status, body } = await t.json<{ cursor: number; horizon: number }>("GET", "/v1/events/cursor");
  expect(status).toBe(200);
  assertMatchesSchema(CursorResponse, body);
  return body;
}

async function turn(sessionId: string, text: string, items: number) {
  expect((await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text })).status).toBe(201);
  return t.until(sessionId, (detail) => idle(detail) && detail.conversation.length === items);
}

test("events past the retention period leave the log: the reply reads the same, sequences go on, and cursors behind the horizon get 410", async () => {
  const clock = new ManualClock();
  t = await startSessionServer({ agents: "in-process", config: { eventRetentionDays: SECOND_IN_DAYS }, tuning: onDemandWith(clock) });
  t.script({
    prompts: { "*": [{ chunk: "# Heading\n\n" }, { chunks: { count: 40, text: "several words " } }, { thought: "thinking" }, { chunk: "the end" }] },
  });
  const session = await t.newSession();
  const before = await turn(session.id, "first", 2);
  const replyBefore = lastReply(before)!.text;
  const sessionEvents = (await t.json<Array<{ id: number; subjectRevision: number; subjectId: string }>>("GET", `/v1/sessions/${session.id}/events?limit=500`))
    .body;
  const last = sessionEvents.filter((event) => event.subjectId === session.id).at(-1)!;
  const old = await cursorAndHorizon();
  expect(old.horizon).toBe(0);
  const logged = await replayedEvents(t, 0);
  expect(logged.some((event) => event.kind === "session.message.delta")).toBe(true);

  // Within the retention period nothing goes; past it, everything.
  expect((await t.server.compactor!.compact()).removed).toBe(0);
  await clock.advance(PAST_A_SECOND_MS);
  const report = await t.server.compactor!.compact();
  expect(report.removed).toBe(logged.length);
  const now = await cursorAndHorizon();
  expect(now.horizon).toBe(old.cursor);
  // Everything went, and the cursor stays: a client there resumes (it was told "ahead of the log", 409).
  expect(now.cursor).toBe(old.cursor);
  const resumed = await t.api(`/v1/events/stream?after=${old.cursor}`);
  expect(resumed.status).toBe(200);
  await resumed.body?.cancel();
  const health = (await t.json<Health>("GET", "/v1/health")).body;
  assertMatchesSchema(Health, health);
  expect(health.events).toMatchObject({ horizon: old.cursor, retentionDays: SECOND_IN_DAYS, maxMB: 512 });

  // The state needs nothing of what went: the reply's text was folded into its row first.
  expect(lastReply(await t.detail(session.id))!.text).toBe(replyBefore);

  // Behind the horizon: refused with a sentence, on the stream (both ways of resuming) and the session's page.
  for (const response of [await t.api("/v1/events/stream?after=1"), await t.api("/v1/events/stream", { headers: { "last-event-id": "1" } })]) {
    expect(response.status).toBe(410);
    expect(((await response.json()) as { error: string }).error).toContain("no longer kept");
  }
  const page = await t.json<{ error: string }>("GET", `/v1/sessions/${session.id}/events?after=1`);
  expect(page.status).toBe(410);
  expect(page.body.error).toContain("re-read the session");
  // At the horizon, and from 0 (what is kept), is served.
  expect((await t.json<unknown[]>("GET", `/v1/sessions/${session.id}/events`)).body).toEqual([]);

  // Sequences go on from where they were: no id or revision is given twice.
  await turn(session.id, "second", 4);
  const after = (await t.json<Array<{ id: number; subjectRevision: number; subjectId: string }>>("GET", `/v1/sessions/${session.id}/events?after=${last.id}`))
    .body;
  expect(after[0]!.id).toBe(last.id + 1);
  expect(after.filter((event) => event.subjectId === session.id)[0]!.subjectRevision).toBe(last.subjectRevision + 1);
  const replay = await replayedEvents(t, 0);
  expect(replay.length).toBeGreaterThan(0);
  expect(replay.every((event) => event.globalEventId > old.cursor)).toBe(true);
  expect((await t.detail(session.id)).conversation.map((item) => item.text)).toEqual(["first", replyBefore, "second", replyBefore]);
});

test("past the size cap the oldest events go however young, but a reply being written keeps all of its deltas", async () => {
  t = await startSessionServer({ agents: "in-process", config: { eventLogMaxMB: 0.001 }, tuning: ON_DEMAND });
  t.script({ prompts: { "*": [{ chunk: "before the pause, " }, { gate: "resume" }, { chunk: "after the pause" }] } });
  const session = await t.newSession();
  expect((await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "go" })).status).toBe(201);
  await t.until(session.id, (detail) => lastReply(detail)?.text === "before the pause, ");

  const during = await t.server.compactor!.compact();
  expect(during.removed).toBeGreaterThan(0);
  const firstDelta = (await replayedEvents(t, 0)).find((event) => event.kind === "session.message.delta");
  expect(firstDelta?.payload).toMatchObject({ text: "before the pause, " });
  expect(during.horizon).toBeLessThan(firstDelta!.globalEventId);

  t.agents.openGate("resume");
  const done = await t.until(session.id, (detail) => idle(detail) && detail.conversation.length === 2);
  expect(lastReply(done)!.text).toBe("before the pause, after the pause");
  // Finished now: its deltas may go too, and its text stays.
  await t.server.compactor!.compact();
  expect((await replayedEvents(t, 0)).some((event) => event.kind === "session.message.delta")).toBe(false);
  expect(lastReply(await t.detail(session.id))!.text).toBe("before the pause, after the pause");
});

test("compaction killed with SIGKILL halfway leaves a consistent log; the next start finishes it and loses nothing live", async () => {
  const dataDir = makeTempDir("atrium-compact-");
  try {
    t = await startSessionServer({ agents: "in-process", dataDir: dataDir.path, tuning: onDemandWith(new ManualClock()) });
    t.script({ prompts: { "*": [{ chunk: "## Part\n\n" }, { chunks: { count: 20, text: "some words " } }, { thought: "hmm" }, { chunk: "done" }] } });
    const session = await t.newSession();
    for (let turnIndex = 1; turnIndex <= 4; turnIndex++) await turn(session.id, `prompt ${turnIndex}`, turnIndex * 2);
    const texts = (await t.detail(session.id)).conversation.map((item) => item.text);
    const { cursor } = await cursorAndHorizon();
    // Stopped, with the helper's own folder (its agent's script) gone; the data dir stays.
    await t.cleanup();

    const path = join(dataDir.path, "atrium.db");
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "fixtures", "event-log", "compact-slowly.ts"), path], { stdout: "ignore" });
    const horizon = () =>
      readServerDatabase(dataDir.path, (db) => Number(db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'event_horizon'").get()?.value ?? 0));
    const halfway = await until(
      async () => horizon(),
      (value) => value > cursor / 3,
      10_000,
    );
    child.kill("SIGKILL");
    await child.exited;
    expect(halfway).toBeLessThan(cursor);
    readServerDatabase(dataDir.path, (db) => {
      expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
      // Each batch moved the horizon in the transaction that removed it: nothing at or below it is left.
      const stopped = Number(db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'event_horizon'").get()?.value);
      expect(db.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM events WHERE global_id <= ?").get(stopped)?.n).toBe(0);
      expect(db.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM events WHERE global_id > ?").get(stopped)?.n).toBeGreaterThan(0);
    });

    // Its clock starts where the first server's did: the restart takes no time.
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", dataDir: dataDir.path, config: { eventRetentionDays: SECOND_IN_DAYS }, tuning: onDemandWith(clock) });
    expect((await t.detail(session.id)).conversation.map((item) => item.text)).toEqual(texts);
    await clock.advance(PAST_A_SECOND_MS);
    await t.server.compactor!.compact();
    expect((await cursorAndHorizon()).horizon).toBeGreaterThanOrEqual(cursor);
    expect((await t.detail(session.id)).conversation.map((item) => item.text)).toEqual(texts);
    // The session goes on after all of it.
    t.script({ prompts: { "*": [{ chunk: "still here" }] } });
    await turn(session.id, "again", 10);
    expect(lastReply(await t.detail(session.id))!.text).toBe("still here");
  } finally {
    await t.cleanup();
    dataDir.remove();
  }
});

test("a replay that compaction passes while it runs ends, and resuming from where it stopped is 410: never a silent gap", async () => {
  const clock = new ManualClock();
  t = await startSessionServer({ config: { eventRetentionDays: SECOND_IN_DAYS }, tuning: { ...onDemandWith(clock), streamLimits: { replayPageSize: 2 } } });
  const base = await t.ready();
  // About 250 KB an event: more than the socket's buffers hold, so the replay waits for its reader.
  // Made of the longest keys (500 characters): a write's cost is in its number of entries.
  const longKey = "k".repeat(497);
  for (let write = 1; write <= 60; write++) {
    const entries = Array.from({ length: 500 }, (_, j) => ({
      key: `${longKey}${String(j).padStart(3, "0")}`,
      value: write,
      timestamp: { wallMs: write, counter: 0, deviceId: "d" },
    }));
    expect((await t.json("PUT", "/v1/sync/big", { entries })).status).toBe(200);
  }
  const { cursor } = await cursorAndHorizon();
  await clock.advance(PAST_A_SECOND_MS);
  // Plain: gzip would shrink these repetitive events below what the socket holds, and nothing would wait.
  const response = await t.api(`/v1/events/stream?after=${base + 1}`, { headers: { "accept-encoding": "identity" } });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = (await reader.read()).value ?? "";
  expect((await t.server.compactor!.compact()).horizon).toBe(cursor);
  for (;;) {
    const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (next.done) break;
    text += next.value;
  }
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  expect(ids.length).toBeGreaterThan(0);
  const last = ids.at(-1)!;
  expect(last).toBeLessThan(cursor);
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, index) => base + 2 + index));
  const resumed = await t.api("/v1/events/stream", { headers: { "last-event-id": String(last) } });
  expect(resumed.status).toBe(410);
  await resumed.body?.cancel();
}, 30_000);

test("a pass that meets a locked database fails, health says why, the server serves on, and the next pass succeeds", async () => {
  const clock = new ManualClock();
  t = await startSessionServer({ config: { eventRetentionDays: SECOND_IN_DAYS }, tuning: onDemandWith(clock) });
  // The first harness scan's events, for the pass to remove.
  await t.ready();
  const { cursor } = await cursorAndHorizon();
  await clock.advance(PAST_A_SECOND_MS);
  const unlock = lockDatabase(join(t.dataDir, "atrium.db"));
  try {
    await expect(t.server.compactor!.compact()).rejects.toThrow();
    await until(
      async () => (await t.json<Health>("GET", "/v1/health")).body,
      (health) => health.events?.compactionError !== undefined,
      5000,
    );
    const health = (await t.json<Health>("GET", "/v1/health")).body;
    assertMatchesSchema(Health, health);
    expect(health.events?.compactionError).toContain("locked");
    expect((await cursorAndHorizon()).horizon).toBe(0);
  } finally {
    unlock();
  }
  expect((await t.server.compactor!.compact()).horizon).toBeGreaterThanOrEqual(cursor);
  expect((await t.json<Health>("GET", "/v1/health")).body.events?.compactionError).toBeUndefined();
});

import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { pagesOf } from "../helpers/pages.ts";
import { Schedule } from "../../src/schemas/schedules.ts";
import { SessionEvents } from "../../src/schemas/sessions.ts";
import { idle, startSessionServer, type DetailBody, type SessionTestServer } from "../sessions/session-helpers.ts";

let t: SessionTestServer;
let home: ReturnType<typeof makeTempDir> | undefined;
afterEach(async () => {
  await t.cleanup();
  home?.remove();
  home = undefined;
});

const HOUR = 60 * 60_000;
type ScheduleBody = typeof Schedule.static;
type Event = { kind: string; payload: Record<string, unknown> };

async function scheduleEvents(server: SessionTestServer, sessionId: string): Promise<Event[]> {
  const events = (await server.json<Event[]>("GET", `/v1/sessions/${sessionId}/events?limit=1000`)).body;
  const kinds = events.filter((event) => event.kind.startsWith("session.schedule."));
  for (const event of kinds) assertMatchesSchema(SessionEvents[event.kind as keyof typeof SessionEvents], event.payload);
  return kinds;
}

const userTexts = (detail: DetailBody) => detail.conversation.filter((item) => item.role === "user").map((item) => item.text);
const replies = (detail: DetailBody) => detail.conversation.filter((item) => item.role === "assistant" && !item.isGenerating).map((item) => item.text);

async function schedule(server: SessionTestServer, sessionId: string, body: Record<string, unknown>): Promise<ScheduleBody> {
  const created = await server.json<ScheduleBody>("POST", `/v1/sessions/${sessionId}/schedules`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  assertMatchesSchema(Schedule, created.body);
  return created.body;
}

describe("scheduled prompts", () => {
  test("a one-shot `at` fires once: its prompt is queued like a sent one and the agent answers it", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    t.script({ prompts: { "write the nightly report": [{ chunk: "report written" }] } });
    const session = await t.newSession();
    const at = new Date(clock.now() + HOUR).toISOString();
    const created = await schedule(t, session.id, { text: "write the nightly report", at });
    expect(created).toMatchObject({ sessionId: session.id, text: "write the nightly report", at, cron: null, timezone: "UTC", missed: "run-once" });
    expect(created).toMatchObject({ nextRunAt: at, lastRunAt: null, createdAt: new Date(clock.now()).toISOString() });
    expect(created.id).toStartWith("sch_");

    await clock.advance(HOUR - 60_000);
    expect(userTexts(await t.detail(session.id))).toEqual([]);
    await clock.advance(60_000);
    const answered = await t.until(session.id, (d) => replies(d).length === 1 && idle(d));
    expect(userTexts(answered)).toEqual(["write the nightly report"]);
    expect(replies(answered)).toEqual(["report written"]);

    const [listed] = await pagesOf<ScheduleBody>(t, `/v1/sessions/${session.id}/schedules`, Type.Array(Schedule));
    expect(listed).toEqual([{ ...created, nextRunAt: null, lastRunAt: at }]);
    const events = await scheduleEvents(t, session.id);
    expect(events.map((event) => event.kind)).toEqual(["session.schedule.created", "session.schedule.fired"]);
    expect(events[1]!.payload).toMatchObject({ dueAt: at, missed: false, schedule: { nextRunAt: null, lastRunAt: at } });
    // The prompt it queued carries the run as its client id.
    const queued = (await t.json<Event[]>("GET", `/v1/sessions/${session.id}/events?limit=1000`)).body.find((event) => event.kind === "session.prompt.queued");
    expect(queued?.payload.prompt).toMatchObject({
      id: events[1]!.payload.promptId,
      text: "write the nightly report",
      clientId: `schedule:${created.id}:${at}`,
    });

    // It does not fire again.
    await clock.advance(48 * HOUR);
    expect(userTexts(await t.detail(session.id))).toEqual(["write the nightly report"]);
  });

  test("a cron schedule fires at each due time on its time zone's wall clock", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const session = await t.newSession();
    // 09:00 in Berlin is 08:00 UTC in winter; the clock starts at 2026-01-01T00:00Z.
    const created = await schedule(t, session.id, { text: "standup notes", cron: "0 9 * * *", timezone: "europe/berlin" });
    expect(created).toMatchObject({ at: null, cron: "0 9 * * *", timezone: "Europe/Berlin", nextRunAt: "2026-01-01T08:00:00.000Z" });

    await clock.advance(8 * HOUR);
    await t.until(session.id, (d) => replies(d).length === 1 && idle(d));
    await clock.advance(24 * HOUR);
    const twice = await t.until(session.id, (d) => replies(d).length === 2 && idle(d));
    expect(replies(twice)).toEqual(["echo standup notes", "echo standup notes"]);
    const fired = (await scheduleEvents(t, session.id)).filter((event) => event.kind === "session.schedule.fired");
    expect(fired.map((event) => event.payload.dueAt)).toEqual(["2026-01-01T08:00:00.000Z", "2026-01-02T08:00:00.000Z"]);
    const [listed] = await pagesOf<ScheduleBody>(t, `/v1/sessions/${session.id}/schedules`, Type.Array(Schedule));
    expect(listed![0]).toMatchObject({ nextRunAt: "2026-01-03T08:00:00.000Z", lastRunAt: "2026-01-02T08:00:00.000Z" });
  });

  test("schedules survive a restart; runs missed while the server was down run once, or are skipped", async () => {
    const clock = new ManualClock();
    home = makeTempDir("atrium-schedules-");
    const options = { agents: "in-process" as const, dataDir: home.path, tuning: { clock } };
    t = await startSessionServer(options);
    const session = await t.newSession();
    const once = await schedule(t, session.id, { text: "hourly once", cron: "0 * * * *" });
    const skipped = await schedule(t, session.id, { text: "hourly skipped", cron: "@hourly", missed: "skip" });
    expect(skipped).toMatchObject({ cron: "@hourly", missed: "skip", nextRunAt: "2026-01-01T01:00:00.000Z" });
    await t.cleanup();

    // Down from 00:00 to 03:05: the runs of 01:00, 02:00 and 03:00 are missed.
    await clock.advance(3 * HOUR + 5 * 60_000);
    t = await startSessionServer(options);
    await t.ready();
    const after = await t.until(session.id, (d) => replies(d).length === 1 && idle(d));
    expect(userTexts(after)).toEqual(["hourly once"]);
    const events = await scheduleEvents(t, session.id);
    // Both were due at the same time: they run in either order.
    const ofSchedule = (kind: string, text: string) => events.find((event) => event.kind === kind && (event.payload.schedule as ScheduleBody).text === text);
    expect(events.map((event) => event.kind)).toEqual(expect.arrayContaining(["session.schedule.fired", "session.schedule.skipped"]));
    expect(events).toHaveLength(4);
    expect(ofSchedule("session.schedule.fired", "hourly once")?.payload).toMatchObject({ dueAt: "2026-01-01T01:00:00.000Z", missed: true });
    expect(ofSchedule("session.schedule.skipped", "hourly skipped")?.payload).toMatchObject({
      dueAt: "2026-01-01T01:00:00.000Z",
      schedule: { lastRunAt: null },
    });
    const [listed] = await pagesOf<ScheduleBody>(t, `/v1/sessions/${session.id}/schedules`, Type.Array(Schedule));
    // Made at the same time on the test's clock: the list orders them by id then, so look each one up.
    const listedById = new Map(listed!.map((item) => [item.id, [item.nextRunAt, item.lastRunAt]]));
    expect(listedById).toEqual(
      new Map([
        [once.id, ["2026-01-01T04:00:00.000Z", "2026-01-01T03:05:00.000Z"]],
        [skipped.id, ["2026-01-01T04:00:00.000Z", null]],
      ]),
    );

    // Back on time, both run.
    await clock.advance(55 * 60_000);
    const onTime = await t.until(session.id, (d) => replies(d).length === 3 && idle(d));
    expect(userTexts(onTime).slice(1).sort()).toEqual(["hourly once", "hourly skipped"]);
  });

  test("a scheduled prompt waits in a queue a spent goal budget paused", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    t.script({ prompts: { big: [{ usage: { used: 2_000, size: 10_000 } }, { waitForCancel: true }] } });
    const session = await t.newSession();
    await t.json("PUT", `/v1/sessions/${session.id}/goal`, { objective: "Ship it", tokenBudget: 1_000 });
    await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "big" });
    await t.until(session.id, (d) => d.session.queuePaused && idle(d));
    await schedule(t, session.id, { text: "later", at: new Date(clock.now() + HOUR).toISOString() });
    await clock.advance(HOUR);
    const waiting = await t.until(session.id, (d) => d.promptQueue.length === 1);
    expect(waiting.promptQueue[0]!.text).toBe("later");
    expect(waiting.session.queuePaused).toBe(true);
    expect(userTexts(waiting)).toEqual(["big"]);
  });

  test("bad input is refused with a clear error and stores nothing; unknown ids are 404", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const session = await t.newSession();
    const inAnHour = new Date(clock.now() + HOUR).toISOString();
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ text: "x" }, "give either `at`"],
      [{ text: "x", at: inAnHour, cron: "* * * * *" }, "not both nor neither"],
      [{ text: "x", at: new Date(clock.now()).toISOString() }, "is not in the future"],
      [{ text: "x", at: "tomorrow" }, "at"],
      [{ text: "x", cron: "61 * * * *" }, 'cron: the minute field "61" has 61, outside 0–59'],
      [{ text: "x", cron: "* * *" }, "it needs 5"],
      [{ text: "x", cron: "0 0 31 2 *" }, "never matches"],
      [{ text: "x", cron: "0 9 * * *", timezone: "Mars/Olympus" }, 'timezone: "Mars/Olympus" is not an IANA time zone'],
      [{ text: "", cron: "0 9 * * *" }, "text"],
      [{ text: "x", cron: "0 9 * * *", missed: "sometimes" }, "missed"],
    ];
    for (const [body, error] of refusals) {
      const refused = await t.json<{ error: string }>("POST", `/v1/sessions/${session.id}/schedules`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toContain(error);
    }
    expect((await t.json("POST", "/v1/sessions/ses_nope/schedules", { text: "x", at: inAnHour })).status).toBe(404);
    expect((await t.json("GET", "/v1/sessions/ses_nope/schedules")).status).toBe(404);
    expect((await t.json<unknown[]>("GET", `/v1/sessions/${session.id}/schedules`)).body).toEqual([]);
    expect(await scheduleEvents(t, session.id)).toEqual([]);

    const other = await t.newSession();
    const theirs = await schedule(t, other.id, { text: "x", at: inAnHour });
    const notHere = await t.json<{ error: string }>("DELETE", `/v1/sessions/${session.id}/schedules/${theirs.id}`);
    expect(notHere).toEqual({ status: 404, body: { error: `no schedule ${theirs.id} in session ${session.id}` } });
    expect((await t.json("DELETE", `/v1/sessions/${session.id}/schedules/sch_nope`)).status).toBe(404);
    // An `at` with an offset is the same time, given back in UTC.
    const offset = await schedule(t, session.id, { text: "x", at: "2026-01-01T03:30:00+02:00" });
    expect(offset).toMatchObject({ at: "2026-01-01T01:30:00.000Z", nextRunAt: "2026-01-01T01:30:00.000Z" });
  });

  test("a deleted schedule runs no more; deleting the session removes its schedules; lists are paged", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const session = await t.newSession();
    const made: ScheduleBody[] = [];
    for (const minute of [10, 20, 30]) made.push(await schedule(t, session.id, { text: `at ${minute}`, cron: `${minute} * * * *` }));
    const pages = await pagesOf<ScheduleBody>(t, `/v1/sessions/${session.id}/schedules?limit=2`, Type.Array(Schedule));
    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    expect(
      pages
        .flat()
        .map((item) => item.id)
        .sort(),
    ).toEqual(made.map((item) => item.id).sort());

    for (const gone of made.slice(1)) {
      expect(await t.json("DELETE", `/v1/sessions/${session.id}/schedules/${gone.id}`)).toEqual({ status: 200, body: { id: gone.id } });
    }
    await clock.advance(40 * 60_000);
    const ran = await t.until(session.id, (d) => replies(d).length === 1 && idle(d));
    expect(userTexts(ran)).toEqual(["at 10"]);
    const kinds = (await scheduleEvents(t, session.id)).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === "session.schedule.deleted")).toHaveLength(2);

    expect((await t.json("DELETE", `/v1/sessions/${session.id}`)).status).toBe(200);
    const db = new Database(join(t.dataDir, "atrium.db"), { readonly: true });
    try {
      expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM session_schedules").get()?.n).toBe(0);
    } finally {
      db.close();
    }
    // The timer finds nothing to run.
    await clock.advance(2 * HOUR);
  });
});

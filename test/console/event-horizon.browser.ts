import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ConsoleUnderTest, PHONE, refusedRequest, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// A phone that slept longer than the event log keeps events (issue 27): when it wakes, its stream's
// cursor is behind the horizon, the server refuses it (410), and the console reads everything again
// rather than going on with a hole. Its own server: a retention of a second, compacted all the time.
let atrium: ConsoleUnderTest;

beforeAll(async () => {
  atrium = await startConsole({}, { eventRetentionDays: 1 / 86_400, eventCompactionMinutes: 0.001 });
}, 120_000);

afterAll(() => atrium?.close());

test("on a phone: a stream resumed from behind the horizon is refused 410, and the console reloads", async () => {
  const { page, problems } = await atrium.openSignedIn(PHONE, "/#/harnesses");
  await page.locator('[data-harness="echo"]').getByText("Ready").waitFor();
  await page.evaluate("window.beforeTheHorizon = true");

  // Asleep: the stream is cut (the server restarts) and the phone cannot reach it meanwhile.
  await page.context().setOffline(true);
  await atrium.crashAndRestart();
  // What happens meanwhile ages past the retention and is compacted away.
  await atrium.api("PUT", "/v1/sync/phone-asleep", { entries: [{ key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "test" } }] });
  const { cursor } = await atrium.api<{ cursor: number }>("GET", "/v1/events/cursor");
  await until(
    () => atrium.api<{ horizon: number }>("GET", "/v1/events/cursor"),
    (answer) => answer.horizon >= cursor,
    10_000,
  );

  await page.context().setOffline(false);
  // Reloaded: the page's own state is gone.
  await until(
    // A navigation in the middle of a look is a look that found nothing yet.
    () => page.evaluate("window.beforeTheHorizon === undefined").catch(() => false),
    (reloaded) => reloaded === true,
    10_000,
  );
  await page.locator('[data-harness="echo"]').getByText("Ready").waitFor();
  // Besides the streams the crash cut (cut mid-answer, or reset) and the offline tries, the refusals
  // (one per open stream) are the only trace: no script error, nothing else refused.
  const traces = problems.filter((problem) => !/ERR_INTERNET_DISCONNECTED|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_RESET/.test(problem));
  expect(traces.length).toBeGreaterThan(0);
  expect(new Set(traces)).toEqual(new Set([refusedRequest("410 (Gone)")]));
  await page.context().close();
});

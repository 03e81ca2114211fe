import { afterAll, beforeAll, expect, test } from "bun:test";
import { type ConsoleUnderTest, DESKTOP, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// Issue 30: the event stream goes gzip-compressed to a client that takes it and reached the server over
// a network, flushed after every event. Chromium asks for gzip by itself; here it reaches the loopback
// server by a name of its own, as a phone reaches it by the machine's name.
const PHONE_HOST = "atrium-phone.test";
let atrium: ConsoleUnderTest;

beforeAll(async () => {
  atrium = await startConsole({}, { allowedHosts: [PHONE_HOST] }, [`--host-resolver-rules=MAP ${PHONE_HOST} 127.0.0.1`]);
}, 120_000);

afterAll(() => atrium?.close());

test("Chromium reaching the server by name gets the event stream gzip-compressed, decodes each event as it comes, and the console updates live", async () => {
  const { page, problems } = await atrium.open(DESKTOP, "/");
  const origin = `http://${PHONE_HOST}:${new URL(atrium.serve.url).port}`;
  await page.goto(`${origin}/`);
  await page.evaluate((token: string) => localStorage.setItem("atrium.token", token), atrium.adminToken());
  const streamed = page.waitForResponse((response) => response.url().includes("/v1/events/stream"));
  await page.goto(`${origin}/#/projects`);
  await page.reload();
  const stream = await streamed;
  expect((await stream.allHeaders())["content-encoding"]).toBe("gzip");
  expect((await stream.request().allHeaders())["accept-encoding"]).toContain("gzip");

  // The page's own fetch, read as the console reads it: the event is there before any other comes.
  const encoding = await page.evaluate(async (token: string) => {
    const response = await fetch("/v1/events/stream?kind=project.created", { headers: { authorization: `Bearer ${token}` } });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const state = { text: "" };
    Object.assign(globalThis, { streamState: state });
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        state.text += value;
      }
    })();
    return response.headers.get("content-encoding");
  }, atrium.adminToken());
  expect(encoding).toBe("gzip");
  const decoded = () => page.evaluate(() => (globalThis as unknown as { streamState: { text: string } }).streamState.text);
  await until(decoded, (text) => text.includes(": connected\n\n"));
  const project = await atrium.api<{ id: string }>("POST", "/v1/projects", { isScratch: true, name: "Live gzip" });
  await until(decoded, (text) => text.includes(`"subjectId":"${project.id}"`), 2_000);
  await page.locator("[data-project]", { hasText: "Live gzip" }).waitFor();

  // The same console by its loopback address: the stream as it is.
  const local = await atrium.open(DESKTOP, "/");
  const plain = local.page.waitForResponse((response) => response.url().includes("/v1/events/stream"));
  await local.page.evaluate((token: string) => localStorage.setItem("atrium.token", token), atrium.adminToken());
  await local.page.goto(`${atrium.serve.url}/#/projects`);
  await local.page.reload();
  expect((await (await plain).allHeaders())["content-encoding"]).toBeUndefined();
  expect([...problems, ...local.problems]).toEqual([]);
  await page.context().close();
  await local.page.context().close();
});

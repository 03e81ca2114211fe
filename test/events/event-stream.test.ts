import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { existsSync, readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { EventRecord } from "../../src/schemas/events.ts";

let t: TestServer;

let wallMs = 1;
/** One acknowledged write through the public API; each appends one `sync.changed` event. */
async function write(namespace: string, key = "k"): Promise<void> {
  const { status } = await t.json("PUT", `/v1/sync/${namespace}`, {
    entries: [{ key, value: wallMs, timestamp: { wallMs: wallMs++, counter: 0, deviceId: "test" } }],
  });
  expect(status).toBe(200);
}

function stream(query = "", headers: Record<string, string> = {}): SseClient {
  return new SseClient(`${t.url}/v1/events/stream${query}`, { authorization: `Bearer ${t.token}`, ...headers });
}

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");

/**
 * Whether the server still has an open connection to the client at `clientPort` (Linux: from
 * /proc/net/tcp; state 01 is ESTABLISHED, 04 FIN_WAIT1 still holding unsent data).
 */
function serverSideConnectionTo(clientPort: number): boolean {
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .some((fields) => fields[2]?.endsWith(`:${hexPort(clientPort)}`) && (fields[3] === "01" || fields[3] === "04"));
}

/** The ids of the test's own events, counted from the cursor at start-up (harness scans come first). */
let base = 0;
const ids = (client: SseClient) => client.frames.filter((frame) => frame.event === "sync.changed").map((frame) => Number(frame.id) - base);

/**
 * One server for the tests that count only their own events from the cursor they start at: small
 * replay pages (a replay then spans several), and heartbeats often enough to wait on.
 */
let shared: TestServer;
describe("event stream", () => {
  beforeAll(async () => {
    shared = await startTestServer({ tuning: { streamLimits: { replayPageSize: 7, heartbeatMs: 10 } } });
  });
  afterAll(() => shared.stop());
  beforeEach(async () => {
    t = shared;
    base = await t.ready();
  });

  test("frames carry id = globalEventId, event = kind and the record as data", async () => {
    const client = stream(`?after=${base}`);
    await client.ready;
    expect(client.status).toBe(200);
    await write("a");
    const [frame] = await client.waitForFrames(1);
    const record = JSON.parse(frame!.data);
    assertMatchesSchema(EventRecord, record);
    expect(frame!.id).toBe(String(record.globalEventId));
    expect(frame!.event).toBe("sync.changed");
    client.close();
  });

  test("Last-Event-ID resume gets exactly the missed events, then live ones", async () => {
    for (let i = 0; i < 3; i++) await write("a");
    const first = stream(`?after=${base}`);
    await first.waitForFrames(3);
    first.close();
    for (let i = 0; i < 5; i++) await write("a"); // appended while the client was away
    // EventSource keeps the original URL and adds Last-Event-ID, which must win over `after`.
    const resumed = stream(`?after=${base}`, { "last-event-id": String(base + 3) });
    await resumed.waitForFrames(5);
    await write("a");
    await write("a");
    await resumed.waitForFrames(7);
    // A later event on the same ordered stream: anything sent twice would have come before it.
    await write("a");
    await resumed.waitFor((frame) => Number(frame.id) === base + 11);
    expect(ids(resumed)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    resumed.close();
  });

  test("replay and live join with no gap and no duplicate while writes keep coming", async () => {
    for (let i = 0; i < 40; i++) await write("a");
    const writer = (async () => {
      for (let i = 0; i < 40; i++) await write("a");
    })();
    const client = stream(`?after=${base}`);
    await writer;
    await write("a");
    await client.waitFor((frame) => Number(frame.id) === base + 81);
    expect(ids(client)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    client.close();
  });

  test("without a cursor only new events are sent", async () => {
    await write("a");
    // Its answer's head arrives once the stream has taken its place in the log: what follows is new.
    const client = stream();
    await client.ready;
    await write("a");
    await write("a");
    await client.waitFor((frame) => Number(frame.id) === base + 3);
    expect(ids(client)).toEqual([2, 3]);
    client.close();
  });

  test("50 concurrent clients all receive every event in order", async () => {
    const clients = Array.from({ length: 50 }, () => stream(`?after=${base}`));
    await Promise.all(clients.map((client) => client.ready));
    for (let i = 0; i < 30; i++) await write(`ns${i % 3}`);
    await Promise.all(clients.map((client) => client.waitForFrames(30)));
    for (const client of clients) expect(ids(client)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (const client of clients) client.close();
  });

  test("kind and session filters keep only what matches", async () => {
    const expectations: Array<[string, number]> = [
      ["", 1],
      ["&kind=sync.*", 1],
      ["&kind=project.created,sync.changed", 1],
      ["&kind=project.created", 0],
      ["&kind=sync", 0],
      ["&sessionId=ses_none", 0],
    ];
    const clients = expectations.map(([filter]) => stream(`?after=${base}${filter}`));
    await Promise.all(clients.map((client) => client.ready));
    await write("a");
    // Each stream is ordered, and a heartbeat is queued only behind an empty queue: the second one
    // after the write's answer was queued after the event was published, so a match is ahead of it.
    const heard = clients.map((client) => client.comments);
    await Promise.all(clients.map((client, index) => client.waitForComments(heard[index]! + 2)));
    expect(clients.map((client) => client.frames.length)).toEqual(expectations.map(([, count]) => count));
    for (const client of clients) client.close();
  });

  test("heartbeats keep a quiet stream alive", async () => {
    const client = stream();
    await client.ready;
    // The connected comment, then heartbeats; waited for rather than timed, for a loaded CI.
    await client.waitForComments(4);
    expect(client.comments).toBeGreaterThanOrEqual(4);
    expect(client.closed).toBe(false);
    client.close();
  });

  test("a cursor ahead of the log (from a reset data dir) is 409, not a silent gap", async () => {
    await write("a");
    for (const request of [t.api("/v1/events/stream?after=100000"), t.api("/v1/events/stream", { headers: { "last-event-id": "100000" } })]) {
      const response = await request;
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: string }).error).toContain(`ahead of this server's event log (${base + 1})`);
    }
    const atCursor = await t.api(`/v1/events/stream?after=${base + 1}`);
    expect(atCursor.status).toBe(200);
    await atCursor.body?.cancel();
  });

  test("a malformed Last-Event-ID is 400", async () => {
    const response = await t.api("/v1/events/stream", { headers: { "last-event-id": "abc" } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("Last-Event-ID");
  });
});

describe("a slow client", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  test("a client that stops reading is dropped without holding up the others", async () => {
    t = await startTestServer({ tuning: { streamLimits: { maxQueuedBytes: 256 * 1024 } } });
    base = await t.ready();
    const server = t;
    cleanups.push(() => server.stop());
    // A separate process that sends the request and is then stopped: it cannot read, so first the
    // kernel's socket buffers fill, then the server's queue for it.
    const stalled = Bun.spawn(
      [
        process.execPath,
        "-e",
        `
        const socket = require("node:net").connect(${t.server.port}, "127.0.0.1", () => {
          socket.write("GET /v1/events/stream HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer ${t.token}\\r\\n\\r\\n", () => console.log(socket.localPort));
        });
        setInterval(() => {}, 1000);`,
      ],
      { stdout: "pipe" },
    );
    const stalledPort = Number(new TextDecoder().decode((await stalled.stdout.getReader().read()).value).trim());
    const healthy = stream();
    await healthy.ready;
    await until(
      async () => t.server.openStreams,
      (open) => open >= 2,
      5000,
    );
    expect(t.server.openStreams).toBe(2);
    process.kill(stalled.pid, "SIGSTOP");
    // Each write changes 250 long keys, so its event is about 120 KB; bounded in count and time.
    const longKey = "k".repeat(490);
    let written = 0;
    const started = Date.now();
    while (t.server.openStreams > 1 && written < 200 && Date.now() - started < 20_000) {
      written++;
      const entries = Array.from({ length: 250 }, (_, j) => ({
        key: `${longKey}${j}`,
        value: written,
        timestamp: { wallMs: written, counter: 0, deviceId: "d" },
      }));
      expect((await t.json("PUT", "/v1/sync/big", { entries })).status).toBe(200);
    }
    expect(t.server.openStreams).toBe(1);
    // The dropped client's connection is cut, not left holding its buffers until it reads again.
    if (existsSync("/proc/net/tcp")) {
      await until(
        async () => serverSideConnectionTo(stalledPort),
        (connected) => !connected,
        5000,
      );
    }
    stalled.kill("SIGKILL");
    await healthy.waitForFrames(written, 15_000);
    expect(ids(healthy)).toEqual(Array.from({ length: written }, (_, i) => i + 1));
    healthy.close();
  }, 40_000);
});

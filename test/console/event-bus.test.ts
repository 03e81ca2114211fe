import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { EventBus, type EventSubscription, retryDelay, type StreamedEvent, type StreamEnvironment } from "../../src/console/ui/shared/event-bus.ts";
import type { SyncNamespace } from "../../src/schemas/sync.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The console's event bus against a real server's stream: one connection for what every part of the
// page follows, each event handed once to those it concerns, a failing handler told and not fatal, and
// a dropped stream opened again after waits that grow.
const DELAYS = { firstMs: 20, longestMs: 160, steadyMs: 60_000 };

let server: TestServer | undefined;
let stopBus: Array<() => void> = [];
const dataDir = makeTempDir("atrium-event-bus-");

afterEach(async () => {
  for (const stop of stopBus) stop();
  stopBus = [];
  await server?.server.stop();
  server = undefined;
});

afterAll(() => dataDir.remove());

/** A page for the bus: the real stream over fetch, always shown; what it opens, waits and reports is recorded. */
function recordingPage(url: () => string, token: string) {
  const opened: Array<{ query: URLSearchParams; lastEventId: string | null }> = [];
  const pauses: number[] = [];
  const reports: string[] = [];
  let readAgain = 0;
  const page: StreamEnvironment = {
    open(query, lastEventId, signal) {
      opened.push({ query: new URLSearchParams(query), lastEventId });
      return fetch(`${url()}/v1/events/stream?${query}`, {
        headers: { authorization: `Bearer ${token}`, ...(lastEventId === null ? {} : { "last-event-id": lastEventId }) },
        signal,
      });
    },
    whenShown: async () => {},
    onHidden: () => () => {},
    pause(ms, signal) {
      pauses.push(ms);
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        signal.addEventListener("abort", stop, { once: true });
      });
    },
    nextFrame(flush) {
      const timer = setTimeout(flush, 16);
      return () => clearTimeout(timer);
    },
    readAgain: () => readAgain++,
    report: (message) => reports.push(message),
  };
  return { page, opened, pauses, reports, readAgains: () => readAgain };
}

/** A subscriber that keeps what it is handed and told. */
function recorder(subscription: Omit<EventSubscription, "onEvents" | "onProblem">, onEvents: (events: StreamedEvent[]) => void = () => {}) {
  const events: StreamedEvent[] = [];
  const problems: string[] = [];
  const full: EventSubscription = {
    ...subscription,
    onEvents(handed) {
      events.push(...handed);
      onEvents(handed);
    },
    onProblem: (sentence) => problems.push(sentence),
  };
  return { subscription: full, events, problems };
}

async function start(): Promise<{ bus: EventBus; recorded: ReturnType<typeof recordingPage>; cursor: number }> {
  server = await startTestServer({ dataDir: dataDir.path, port: server?.server.port ?? 0 });
  const cursor = await server.ready();
  const recorded = recordingPage(() => server!.url, server.token);
  return { bus: new EventBus(recorded.page, DELAYS), recorded, cursor };
}

const subscribe = (bus: EventBus, subscription: EventSubscription) => stopBus.push(bus.subscribe(subscription));
const putSetting = (namespace: string, value: number) =>
  server!.json<SyncNamespace>("PUT", `/v1/sync/${namespace}`, { entries: [{ key: "k", value, timestamp: { wallMs: value, counter: 0, deviceId: "test" } }] });
const project = (name: string) => server!.json("POST", "/v1/projects", { isScratch: true, name });
const kinds = (events: StreamedEvent[]) => events.map((event) => event.kind);
const arrived = (events: unknown[], count: number) =>
  until(
    async () => events.length,
    (length) => length >= count,
  );

describe("the console's event bus", () => {
  test("two subscribers share one connection; each is handed its kinds only, in order, once", async () => {
    const { bus, recorded, cursor } = await start();
    const settings = recorder({ kinds: ["sync.changed"], after: cursor });
    const projects = recorder({ kinds: ["project.*"], after: cursor });
    subscribe(bus, settings.subscription);
    subscribe(bus, projects.subscription);
    await putSetting("a", 1);
    await project("One");
    await putSetting("a", 2);
    await arrived(settings.events, 2);
    await arrived(projects.events, 1);
    expect(kinds(settings.events)).toEqual(["sync.changed", "sync.changed"]);
    expect(kinds(projects.events)).toEqual(["project.created"]);
    expect(recorded.opened.length).toBe(1);
    expect(recorded.opened[0]!.query.get("kind")!.split(",").sort()).toEqual(["project.*", "sync.changed"]);
  });

  test("a handler that throws is told and reported; the others go on, and so does the connection", async () => {
    const { bus, recorded, cursor } = await start();
    const failing = recorder({ kinds: ["sync.changed"], after: cursor }, () => {
      throw new Error("the handler broke");
    });
    const steady = recorder({ kinds: ["sync.changed"], after: cursor });
    subscribe(bus, failing.subscription);
    subscribe(bus, steady.subscription);
    await putSetting("b", 1);
    await putSetting("b", 2);
    await arrived(steady.events, 2);
    await arrived(failing.problems, 2);
    expect(failing.problems[0]).toContain("the handler broke");
    expect(recorded.reports.length).toBe(2);
    expect(recorded.opened.length).toBe(1);
    expect(recorded.pauses).toEqual([]);
  });

  test("a subscriber with new kinds and an earlier cursor opens the stream again and gets what it missed; nobody gets an event twice", async () => {
    const { bus, recorded, cursor } = await start();
    const settings = recorder({ kinds: ["sync.changed"], after: cursor });
    subscribe(bus, settings.subscription);
    await putSetting("c", 1);
    await project("Made before the list subscribed");
    await putSetting("c", 2);
    await arrived(settings.events, 2);
    const projects = recorder({ kinds: ["project.created"], after: cursor });
    subscribe(bus, projects.subscription);
    await arrived(projects.events, 1);
    await putSetting("c", 3);
    await arrived(settings.events, 3);
    expect(settings.events.map((event) => event.globalEventId)).toEqual([...new Set(settings.events.map((event) => event.globalEventId))]);
    expect(kinds(projects.events)).toEqual(["project.created"]);
    expect(recorded.opened.length).toBe(2);
    expect(recorded.opened[1]!.query.get("after")).toBe(String(cursor));
    // A subscriber that wants what the open connection carries, from its own later cursor, joins it as it is.
    const later = recorder({ kinds: ["sync.changed"], after: settings.events.at(-1)!.globalEventId });
    subscribe(bus, later.subscription);
    await putSetting("c", 4);
    await arrived(later.events, 1);
    expect(recorded.opened.length).toBe(2);
  });

  test("one session's events come on a stream of that session's own", async () => {
    const { bus, recorded, cursor } = await start();
    const everything = recorder({ kinds: ["sync.changed"], after: cursor });
    const session = recorder({ sessionId: "ses_none", after: cursor });
    subscribe(bus, everything.subscription);
    subscribe(bus, session.subscription);
    await putSetting("d", 1);
    await arrived(everything.events, 1);
    await until(
      async () => recorded.opened.length,
      (count) => count === 2,
    );
    const sessionQuery = recorded.opened.find((open) => open.query.has("sessionId"))!.query;
    expect(sessionQuery.get("sessionId")).toBe("ses_none");
    expect(sessionQuery.has("kind")).toBe(false);
    expect(session.events).toEqual([]);
  });

  test("a dropped stream is opened again after waits that double up to the longest, and resumes from the last event", async () => {
    const { bus, recorded, cursor } = await start();
    const settings = recorder({ kinds: ["sync.changed"], after: cursor });
    subscribe(bus, settings.subscription);
    await putSetting("e", 1);
    await arrived(settings.events, 1);
    const port = server!.server.port;
    await server!.server.stop();
    server = undefined;
    await until(
      async () => recorded.pauses.length,
      (count) => count >= 6,
    );
    expect(recorded.pauses.slice(0, 6)).toEqual([20, 40, 80, 160, 160, 160]);
    server = await startTestServer({ dataDir: dataDir.path, port });
    await putSetting("e", 2);
    await arrived(settings.events, 2);
    expect(settings.events.map((event) => (event.payload as { namespace: string }).namespace)).toEqual(["e", "e"]);
    expect(recorded.opened.at(-1)!.lastEventId).toBe(String(settings.events[0]!.globalEventId));
    expect(retryDelay(DELAYS, 30)).toBe(DELAYS.longestMs);
  });

  test("a cursor past the newest event is refused; the page is read again instead of skipping events", async () => {
    const { bus, recorded, cursor } = await start();
    subscribe(bus, recorder({ kinds: ["sync.changed"], after: cursor + 1_000 }).subscription);
    await until(
      async () => recorded.readAgains(),
      (count) => count === 1,
    );
  });
});

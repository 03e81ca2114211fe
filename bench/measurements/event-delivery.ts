import { type Atrium, syncWrite } from "../lib/atrium.ts";
import { type EventStream, wallMs } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { LOAD_CPU, onSchedule, pinThisProcess, until, withTimeout } from "../lib/processes.ts";
import { atLeast, below } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

const CLIENTS = 100;
const EVENTS = 500;
/** Appended and delivered before measuring, so that neither side's JIT warm-up counts as latency. */
const WARMUP_EVENTS = 50;
/** Far apart enough that each event is delivered before the next is sent: latency, not a queue. */
const INTERVAL_MS = 5;

/**
 * One PUT /v1/sync/bench per slot of the schedule, each answer awaited, so that the events' ids follow the send times;
 * `world.appended` counts them, each stamped newer than the one before, or the entry would not change.
 */
async function append(world: { atrium: Atrium; appended: number }, count: number): Promise<{ sentAt: number[]; roundTripMs: number[]; failed: number }> {
  const { atrium } = world;
  const appends = { sentAt: [] as number[], roundTripMs: [] as number[], failed: 0 };
  await onSchedule(count, INTERVAL_MS, async () => {
    const body = JSON.stringify(syncWrite(world.appended++));
    const sentAt = wallMs();
    const response = await fetch(`${atrium.url}/v1/sync/bench`, { method: "PUT", headers: { ...atrium.headers, "content-type": "application/json" }, body });
    await response.arrayBuffer();
    appends.sentAt.push(sentAt);
    appends.roundTripMs.push(wallMs() - sentAt);
    if (response.status !== 200) appends.failed++;
  });
  return appends;
}

const cursorOf = async (atrium: Atrium) => (await atrium.call<{ cursor: number }>(200, "GET", "/v1/events/cursor")).cursor;

/** Until every client holds the events through `last`, or 5 s. */
const delivered = (clients: EventStream[], last: number) =>
  until(
    () => (clients.every((client) => (client.events.at(-1)?.globalEventId ?? 0) >= last || client.problems.length > 0) ? true : undefined),
    5_000,
    "delivery",
    10,
  ).catch(() => undefined);

export const eventDelivery = measurement({
  key: "events",
  title: "Event append -> 100 SSE clients",
  seed: {
    what: `the compiled binary on a fresh data dir; ${CLIENTS} SSE clients (real connections, parsed as EventSource does) subscribed, in this process, pinned to the load CPU.`,
    async run(bench) {
      const atrium = await bench.atrium();
      bench.defer(pinThisProcess(LOAD_CPU));
      const clients = await withTimeout(Promise.all(Array.from({ length: CLIENTS }, () => atrium.events())), 15_000, `${CLIENTS} SSE clients connecting`);
      bench.defer(() => {
        for (const client of clients) client.close();
      });
      return { atrium, clients, appended: 0 };
    },
  },
  action: {
    what:
      `one writer in the clients' process (one clock) appends ${EVENTS} events through PUT /v1/sync/bench, ${INTERVAL_MS} ms apart, after ` +
      `${WARMUP_EVENTS} unmeasured ones; latency = a client has the frame - the writer about to send the PUT, so it includes the ` +
      "request, the commit and the fan-out; every client must hold exactly the appended events, in order.",
    async run(world) {
      const { atrium, clients } = world;
      await append(world, WARMUP_EVENTS);
      await delivered(clients, await cursorOf(atrium));
      const cursor = await cursorOf(atrium);
      const appends = await append(world, EVENTS);
      await delivered(clients, cursor + EVENTS);
      const deliveryMs: number[] = [];
      // The same for the first client to have each event: the gap to the above is this process reading 100 streams in turn.
      const firstClientMs: number[] = [];
      let clientsInOrder = 0;
      for (const client of clients) {
        // Warm-up events still on their way to a client the warm-up's wait gave up on are left out too.
        const measured = client.events.filter((event) => event.globalEventId > cursor);
        client.events.length = 0;
        if (client.problems.length === 0 && measured.length === EVENTS && measured.every((event, index) => event.globalEventId === cursor + index + 1))
          clientsInOrder++;
        for (const event of measured) {
          const index = event.globalEventId - cursor - 1;
          const latency = event.receivedAt - appends.sentAt[index]!;
          deliveryMs.push(latency);
          firstClientMs[index] = Math.min(firstClientMs[index] ?? Number.POSITIVE_INFINITY, latency);
        }
      }
      const first = summarize(firstClientMs.filter(Number.isFinite));
      return {
        deliveryMs: summarize(deliveryMs),
        firstClientMs: first,
        appendMs: summarize(appends.roundTripMs),
        failedAppends: appends.failed,
        clientsInOrder,
      };
    },
  },
  baseline: { what: "the first client to have each event, which separates the server from this process reading 100 streams in turn." },
  rounds: { warmup: 0, measured: 1 },
  figures: ({ action: [result] }) => [
    { label: "delivery p50", value: result!.deliveryMs.p50, unit: "ms" },
    { label: "delivery p99", value: result!.deliveryMs.p99, unit: "ms", target: below(5) },
    { label: "delivery max", value: result!.deliveryMs.max, unit: "ms" },
    { label: "first client per event p99", value: result!.firstClientMs.p99, unit: "ms" },
    { label: "append round trip p50", value: result!.appendMs.p50, unit: "ms" },
    { label: "append round trip p99", value: result!.appendMs.p99, unit: "ms" },
    // Clients that received exactly the appended events, each once, in globalEventId order; none when an append failed.
    {
      label: `clients with all ${EVENTS} events in order`,
      value: result!.failedAppends > 0 ? 0 : result!.clientsInOrder,
      unit: "count",
      target: atLeast(CLIENTS),
    },
  ],
});

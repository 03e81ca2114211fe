import { serverTrouble, startAtrium, type ApiCall, type Atrium } from "../lib/atrium.ts";
import { wallMs } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { awaitOnline, pairTwo, type PairedServer } from "../lib/paired.ts";
import { until } from "../lib/processes.ts";
import { below } from "../lib/report.ts";
import { medianOf, ratio, summarize, timed } from "../lib/stats.ts";

const WRITES = 200;
const CATCH_UP_KEYS = 10_000;
/** The most one PUT /v1/sync takes. */
const BATCH = 1_000;
const DELIVERY_TIMEOUT_MS = 5_000;

/** `sync.changed` events of one server as they arrive: when each key of each namespace first showed. */
async function syncStream(atrium: Atrium, after?: number) {
  const arrivals = new Map<string, number>();
  const stream = await atrium.events(`?kind=sync.changed${after === undefined ? "" : `&after=${after}`}`, {
    keep: false,
    onEvent(event) {
      const { namespace, keys } = event.payload as { namespace: string; keys: string[] };
      for (const key of keys) if (!arrivals.has(`${namespace}/${key}`)) arrivals.set(`${namespace}/${key}`, event.receivedAt);
    },
  });
  return { stream, arrivals };
}

/** One key per PUT on A, each awaited on both streams before the next: latency, not a queue. On B's stream, and on A's own (the baseline). */
async function propagate(a: Atrium, b: Atrium, round: number) {
  const [onA, onB] = [await syncStream(a), await syncStream(b)];
  const [remote, local]: [number[], number[]] = [[], []];
  try {
    for (let index = 0; index < WRITES; index++) {
      const key = `bench-propagation/${round}-${index}`;
      const timestamp = { wallMs: Date.now(), counter: 0, deviceId: "bench" };
      const sentAt = wallMs();
      await a.call(200, "PUT", "/v1/sync/bench-propagation", { entries: [{ key: `${round}-${index}`, value: { index }, timestamp }] });
      const shown = (side: typeof onA) => until(() => side.arrivals.get(key), DELIVERY_TIMEOUT_MS, `${key} on a stream`, 1);
      const [atA, atB] = await Promise.all([shown(onA), shown(onB)]);
      local.push(atA - sentAt);
      remote.push(atB - sentAt);
    }
  } finally {
    onA.stream.close();
    onB.stream.close();
  }
  return { remote: summarize(remote), local: summarize(local) };
}

/** 10,000 keys with 100-byte values in PUTs of 1,000, one after another; ms from the first sent to the last answered. */
async function putAll(call: ApiCall, round: number): Promise<number> {
  const timestamp = { wallMs: Date.now(), counter: 0, deviceId: "bench" };
  const entry = (index: number) => ({ key: `key-${index}`, value: `${round}-${index}-`.padEnd(100, "x"), timestamp });
  const batches = Array.from({ length: CATCH_UP_KEYS / BATCH }, (_, batch) => ({
    entries: Array.from({ length: BATCH }, (_, at) => entry(batch * BATCH + at)),
  }));
  return (
    await timed(async () => {
      for (const batch of batches) await call(200, "PUT", `/v1/sync/bench-catch-up-${round}`, batch);
    })
  ).ms;
}

/**
 * Stops B, writes 10,000 keys on A, starts B again on its data dir and port, and times it until B
 * holds them all. B's stream replays from B's cursor before the stop, so that a change applied
 * before the stream connects still counts from the moment it showed.
 */
async function catchUp(a: PairedServer, b: PairedServer, round: number) {
  const namespace = `bench-catch-up-${round}`;
  const { cursor } = await b.atrium.call<{ cursor: number }>(200, "GET", "/v1/events/cursor");
  await b.atrium.stop();
  const acceptedOnAMs = await putAll(a.atrium.call, round);
  await b.start();
  const listeningAt = wallMs();
  const { stream, arrivals } = await syncStream(b.atrium, cursor);
  try {
    const keys = () => [...arrivals].filter(([key]) => key.startsWith(`${namespace}/`));
    const all = () => (keys().length >= CATCH_UP_KEYS ? Math.max(...keys().map(([, at]) => at)) : undefined);
    const lastAt = await until(all, 60_000, `all ${CATCH_UP_KEYS} keys on B`);
    const held = await b.atrium.call<{ entries: unknown[] }>(200, "GET", `/v1/sync/${namespace}`);
    if (held.entries.length !== CATCH_UP_KEYS) throw new Error(`after round ${round} B holds ${held.entries.length} entries of ${namespace}`);
    await awaitOnline(a, b);
    // B's spawn to `listening on`, then to the last key on its stream.
    return { startupMs: b.atrium.readyMs, replicationMs: lastAt - listeningAt, acceptedOnAMs };
  } finally {
    stream.close();
  }
}

export const machineSync = measurement({
  key: "machines",
  title: "Paired servers: 200 writes A -> B; B catching up 10,000 keys",
  seed: {
    what: "two compiled servers, A and B, both on the server CPU, each with its own data dir, port and machineId, paired by a code and listing each other online.",
    async run(bench) {
      return { ...(await pairTwo(bench)), binary: bench.binary };
    },
  },
  action: {
    what:
      `${WRITES} sequential one-key PUT /v1/sync on A, each awaited on both servers' streams (kind=sync.changed) before the next, ` +
      "latency = key shown on a stream - PUT about to be sent; then B stopped, 10 PUTs of 1,000 keys (100-byte values) on A, B started " +
      "again on its data dir and port: catch-up = B listening -> the last key on B's stream (replayed from B's cursor), checked by GET on B.",
    run: async ({ a, b }, round) => ({ propagation: await propagate(a.atrium, b.atrium, round), catchUp: await catchUp(a, b, round) }),
  },
  baseline: {
    what: "for propagation, A's own stream; for catch-up, the same 10 PUTs into an unpaired server started for the round (cold, like B).",
    async run({ binary }, round) {
      const direct = await startAtrium(binary);
      return { directMs: await putAll(direct.call, round).finally(() => direct.stop()) };
    },
  },
  rounds: { warmup: 1, measured: 3 },
  figures({ action, baseline }, world) {
    const of = (pick: (round: (typeof action)[number]) => number) => medianOf(action, pick);
    const [remote, local] = [of((r) => r.propagation.remote.p50), of((r) => r.propagation.local.p50)];
    const replication = of((r) => r.catchUp.replicationMs);
    const directMs = medianOf(baseline, (round) => round.directMs);
    return [
      { label: "propagation A -> B's stream p50", value: remote, unit: "ms", target: below(50) },
      { label: "propagation A -> B's stream p95", value: of((r) => r.propagation.remote.p95), unit: "ms" },
      { label: "A's own stream p50 (baseline)", value: local, unit: "ms" },
      { label: "A's own stream p95", value: of((r) => r.propagation.local.p95), unit: "ms" },
      { label: "propagation p50 ratio to baseline", value: ratio(remote, local), unit: "ratio" },
      { label: `catch-up of ${CATCH_UP_KEYS.toLocaleString("en-US")} keys, B listening -> all on B`, value: replication, unit: "ms", target: below(5_000) },
      { label: "B start-up, spawn -> listening (not in the above)", value: of((r) => r.catchUp.startupMs), unit: "ms" },
      { label: "same 10 PUTs into a fresh unpaired server (baseline)", value: directMs, unit: "ms" },
      { label: "catch-up ratio to baseline", value: ratio(replication, directMs), unit: "ratio" },
      { label: "the 10 PUTs on A while B was stopped", value: of((r) => r.catchUp.acceptedOnAMs), unit: "ms" },
      { label: "warnings and errors in A's log, B's (a push to a stopped B fails once a round)", value: serverTrouble(world.a.home), unit: "count" },
      { label: "warnings and errors in B's log", value: serverTrouble(world.b.home), unit: "count" },
    ];
  },
});

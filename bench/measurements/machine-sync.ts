import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { atriumCommand, atriumEnv, startAtrium } from "../lib/atrium.ts";
import { freePort, onCpu, pinning, SERVER_CPU, startServer, tempDir, withTimeout, type RunningServer } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { median, summarize } from "../lib/stats.ts";

const WARMUP_WRITES = 20;
const WRITES = 200;
const TARGET_PROPAGATION_P50_MS = 50;
/** How long one write may take to show on a stream before the run is called broken. */
const DELIVERY_TIMEOUT_MS = 5_000;
const CATCH_UP_KEYS = 10_000;
/** The most one PUT /v1/sync takes. */
const BATCH = 1_000;
const VALUE_CHARS = 100;
/** Rounds of stop, write, restart; the figures are their median. */
const CATCH_UP_ROUNDS = 3;
const TARGET_CATCH_UP_MS = 5_000;
const CATCH_UP_TIMEOUT_MS = 60_000;
const ONLINE_TIMEOUT_MS = 15_000;

type Call = <T>(method: string, path: string, body?: unknown) => Promise<T>;

function caller(url: () => string, token: () => string): Call {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers = { authorization: `Bearer ${token()}`, "content-type": "application/json" };
    const response = await fetch(`${url()}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
}

/**
 * A server with a data dir and a port of its own that outlive its process, so that it can be stopped
 * and started again where its peer expects it. Its config.json gives it its own machineId.
 */
class PairedServer {
  readonly home = tempDir("machine");
  readonly port = freePort();
  readonly call: Call = caller(
    () => this.url,
    () => this.token,
  );
  private server: RunningServer | undefined;
  private token = "";

  constructor(
    private readonly binary: string,
    readonly machineId: string,
  ) {
    // No update check: a request to the release server at start-up would land in the catch-up figure.
    const config = { machineId, machineName: `bench ${machineId}`, updateCheckIntervalHours: 0 };
    writeFileSync(join(this.home, "config.json"), `${JSON.stringify(config)}\n`);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get credentials(): { url: string; token: string } {
    return { url: this.url, token: this.token };
  }

  /** Resolves once it prints `listening on`, which is also when its machines start calling their peers. */
  async start(): Promise<void> {
    this.server = await startServer(onCpu(SERVER_CPU, atriumCommand(this.binary, this.port)), atriumEnv(this.home));
    this.token = readFileSync(join(this.home, "token"), "utf8").trim();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop();
  }

  /** Its log's warn and error lines (the log is JSON lines with a `level`). */
  complaints(): { warn: string[]; error: string[] } {
    const file = join(this.home, "logs", "atrium.log");
    const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
    const at = (level: string) => lines.filter((line) => line.includes(`"level":"${level}"`));
    return { warn: at("warn"), error: at("error") };
  }

  async remove(): Promise<void> {
    try {
      await this.stop();
    } finally {
      rmSync(this.home, { recursive: true, force: true });
    }
  }
}

/**
 * `sync.changed` events of one server as they arrive on its SSE stream, in this process's clock:
 * when each key of each namespace first showed.
 */
class SyncStream {
  private readonly arrivals = new Map<string, Map<string, number>>();
  private readonly waiters = new Set<(failure: Error | undefined) => boolean>();
  private readonly abort = new AbortController();
  private readonly subscribed = Promise.withResolvers<void>();
  private failure: Error | undefined;
  private buffer = "";

  /** Opened on `server`; with `after`, the events after that id are replayed first. Resolves once subscribed. */
  static async open(server: { url: string; token: string }, after?: number): Promise<SyncStream> {
    const stream = new SyncStream();
    const query = `kind=sync.changed${after === undefined ? "" : `&after=${after}`}`;
    void stream.read(`${server.url}/v1/events/stream?${query}`, server.token);
    await withTimeout(stream.subscribed.promise, 10_000, `the event stream of ${server.url} did not connect`);
    return stream;
  }

  /** When `key` of `namespace` first showed, or undefined. */
  arrivalOf(namespace: string, key: string): number | undefined {
    return this.arrivals.get(namespace)?.get(key);
  }

  /** How many keys of `namespace` have shown, and when the last of them first did. */
  keysOf(namespace: string): { count: number; lastAt: number } {
    const keys = this.arrivals.get(namespace);
    return { count: keys?.size ?? 0, lastAt: keys ? Math.max(...keys.values()) : Number.NaN };
  }

  /** Resolves with the first value `check` gives after a frame (or now). */
  until<T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const waiter = (failure: Error | undefined): boolean => {
      if (failure) {
        reject(failure);
        return true;
      }
      const value = check();
      if (value === undefined) return false;
      resolve(value);
      return true;
    };
    if (!waiter(this.failure)) this.waiters.add(waiter);
    return withTimeout(promise, timeoutMs, what).finally(() => this.waiters.delete(waiter));
  }

  close(): void {
    this.abort.abort();
  }

  private async read(url: string, token: string): Promise<void> {
    try {
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: this.abort.signal });
      if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
      const decoder = new TextDecoder();
      for await (const chunk of response.body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        this.takeFrames();
      }
      throw new Error(`${url}: the server ended the stream`);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.subscribed.reject(this.failure);
      this.notify();
    }
  }

  private takeFrames(): void {
    for (let end = this.buffer.indexOf("\n\n"); end !== -1; end = this.buffer.indexOf("\n\n")) {
      const lines = this.buffer.slice(0, end).split("\n");
      this.buffer = this.buffer.slice(end + 2);
      if (lines.includes(": connected")) this.subscribed.resolve();
      const data = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, ""));
      if (data.length === 0) continue;
      const record = JSON.parse(data.join("\n")) as { kind: string; payload: { namespace: string; keys: string[] } };
      if (record.kind !== "sync.changed") continue;
      const at = performance.now();
      const { namespace, keys } = record.payload;
      const seen = this.arrivals.get(namespace) ?? new Map<string, number>();
      this.arrivals.set(namespace, seen);
      for (const key of keys) if (!seen.has(key)) seen.set(key, at);
      this.notify();
    }
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) if (waiter(this.failure)) this.waiters.delete(waiter);
  }
}

interface MachineList {
  machines: Array<{ id: string; online: boolean; isCurrent: boolean }>;
}

/** Until each lists the other as online. */
async function awaitOnline(a: PairedServer, b: PairedServer): Promise<void> {
  const sees = async (from: PairedServer, peer: PairedServer) =>
    (await from.call<MachineList>("GET", "/v1/machines")).machines.some((machine) => machine.id === peer.machineId && machine.online);
  const deadline = performance.now() + ONLINE_TIMEOUT_MS;
  while (!((await sees(a, b)) && (await sees(b, a)))) {
    if (performance.now() > deadline) throw new Error(`${a.machineId} and ${b.machineId} did not both list each other online within ${ONLINE_TIMEOUT_MS} ms`);
    await Bun.sleep(20);
  }
}

async function pair(a: PairedServer, b: PairedServer): Promise<void> {
  const { code } = await a.call<{ code: string }>("POST", "/v1/machines/pairing-codes");
  await b.call("POST", "/v1/machines/pair", { url: a.url, code });
  await awaitOnline(a, b);
}

interface Propagation {
  /** PUT sent on A to the key showing on B's stream. */
  remoteMs: number[];
  /** PUT sent on A to the key showing on A's own stream: the baseline. */
  localMs: number[];
  /** A's stream to B's, per write: the hop itself. */
  hopMs: number[];
  putMs: number[];
}

/** One key per PUT on A, each awaited on both streams before the next, so that this measures latency and not a queue. */
async function propagate(a: PairedServer, streams: { a: SyncStream; b: SyncStream }, count: number, prefix: string): Promise<Propagation> {
  const namespace = "bench-propagation";
  const result: Propagation = { remoteMs: [], localMs: [], hopMs: [], putMs: [] };
  const wallBase = Date.now();
  for (let i = 0; i < count; i++) {
    const key = `${prefix}-${i}`;
    const entries = [{ key, value: { i }, timestamp: { wallMs: wallBase + i, counter: 0, deviceId: "bench" } }];
    const sentAt = performance.now();
    await a.call("PUT", `/v1/sync/${namespace}`, { entries });
    result.putMs.push(performance.now() - sentAt);
    const shown = (stream: SyncStream) => () => stream.arrivalOf(namespace, key);
    const [local, remote] = await Promise.all([
      streams.a.until(shown(streams.a), DELIVERY_TIMEOUT_MS, `${key} did not show on A's stream within ${DELIVERY_TIMEOUT_MS} ms`),
      streams.b.until(shown(streams.b), DELIVERY_TIMEOUT_MS, `${key} did not reach B's stream within ${DELIVERY_TIMEOUT_MS} ms`),
    ]);
    result.localMs.push(local - sentAt);
    result.remoteMs.push(remote - sentAt);
    result.hopMs.push(remote - local);
  }
  return result;
}

function catchUpBatches(round: number): Array<{ entries: unknown[] }> {
  const wallMs = Date.now();
  const batches: Array<{ entries: unknown[] }> = [];
  for (let start = 0; start < CATCH_UP_KEYS; start += BATCH) {
    const entries = [];
    for (let i = start; i < start + BATCH; i++) {
      entries.push({ key: `key-${i}`, value: `${round}-${i}-`.padEnd(VALUE_CHARS, "x"), timestamp: { wallMs, counter: 0, deviceId: "bench" } });
    }
    batches.push({ entries });
  }
  return batches;
}

/** The same 10 requests, one after another; ms from the first sent to the last answered. */
async function putAll(call: Call, namespace: string, batches: Array<{ entries: unknown[] }>): Promise<number> {
  const started = performance.now();
  for (const batch of batches) await call("PUT", `/v1/sync/${namespace}`, batch);
  return performance.now() - started;
}

interface CatchUpRound {
  /** A answering the 10 PUTs while B was stopped. */
  acceptedOnAMs: number;
  /** The same 10 PUTs into an unpaired server just started (cold, like B): the baseline. */
  directMs: number;
  /** Spawn of B to its `listening on`. */
  startupMs: number;
  /** `listening on` to the last of the keys showing on B's stream: the replication part. */
  replicationMs: number;
  /** `listening on` to a GET /v1/sync on B, sent after that, answered with all of them. */
  confirmedByGetMs: number;
}

/**
 * Stops B, writes 10,000 keys on A, starts B again on its data dir and port, and times it until B
 * holds them all. B's stream is opened right after it listens, replaying from B's cursor before the
 * stop, so that a change applied before the stream connects still counts from the moment it showed.
 */
async function catchUp(binary: string, a: PairedServer, b: PairedServer, round: number): Promise<CatchUpRound> {
  const namespace = `bench-catch-up-${round}`;
  const batches = catchUpBatches(round);
  const { cursor } = await b.call<{ cursor: number }>("GET", "/v1/events/cursor");
  await b.stop();
  const acceptedOnAMs = await putAll(a.call, namespace, batches);
  // Started afresh like B, and stopped before B starts, so that the two do not share CPU 0.
  const direct = await startAtrium(binary);
  let directMs: number;
  try {
    directMs = await putAll(
      caller(
        () => direct.server.url,
        () => direct.token,
      ),
      namespace,
      batches,
    );
  } finally {
    await direct.stop();
  }
  const spawnedAt = performance.now();
  await b.start();
  const listeningAt = performance.now();
  const stream = await SyncStream.open(b.credentials, cursor);
  try {
    const lastAt = await stream.until(
      () => {
        const keys = stream.keysOf(namespace);
        return keys.count >= CATCH_UP_KEYS ? keys.lastAt : undefined;
      },
      CATCH_UP_TIMEOUT_MS,
      `B did not show all ${CATCH_UP_KEYS} keys of round ${round} within ${CATCH_UP_TIMEOUT_MS} ms`,
    );
    const held = await b.call<{ entries: Array<{ key: string; value: unknown; deleted: boolean }> }>("GET", `/v1/sync/${namespace}`);
    const confirmedAt = performance.now();
    const expected = new Map(batches.flatMap((batch) => batch.entries as Array<{ key: string; value: unknown }>).map((entry) => [entry.key, entry.value]));
    const wrong = held.entries.filter((entry) => entry.deleted || expected.get(entry.key) !== entry.value).length;
    if (held.entries.length !== CATCH_UP_KEYS || wrong > 0) {
      throw new Error(`after round ${round} B holds ${held.entries.length} entries of ${namespace}, ${wrong} of them not as written on A`);
    }
    await awaitOnline(a, b);
    return {
      acceptedOnAMs,
      directMs,
      startupMs: listeningAt - spawnedAt,
      replicationMs: lastAt - listeningAt,
      confirmedByGetMs: confirmedAt - listeningAt,
    };
  } finally {
    stream.close();
  }
}

const medianOf = (rounds: CatchUpRound[], field: keyof CatchUpRound) => median(rounds.map((round) => round[field]));

/**
 * Two servers (A and B) on loopback, each with its own data dir, port and machineId, paired by a code.
 * Propagation: 200 single-key PUTs on A, each timed to the key's `sync.changed` on B's stream, against
 * A's own stream as the baseline. Catch-up: B stopped, 10,000 keys written on A, B started again and
 * timed until it holds them, against the same 10 PUTs into an unpaired server started just before.
 */
export async function measureMachineSync(binary: string, log: (line: string) => void): Promise<MeasurementResult> {
  const servers: PairedServer[] = [];
  const streams: SyncStream[] = [];
  try {
    const a = new PairedServer(binary, "mch-bench-a");
    servers.push(a);
    const b = new PairedServer(binary, "mch-bench-b");
    servers.push(b);
    await a.start();
    await b.start();
    await pair(a, b);

    const live = { a: await SyncStream.open(a.credentials), b: await SyncStream.open(b.credentials) };
    streams.push(live.a, live.b);
    await propagate(a, live, WARMUP_WRITES, "warm-up");
    const propagation = await propagate(a, live, WRITES, "key");
    for (const stream of streams) stream.close();

    const rounds: CatchUpRound[] = [];
    for (let round = 1; round <= CATCH_UP_ROUNDS; round++) rounds.push(await catchUp(binary, a, b, round));

    const complaints = { a: a.complaints(), b: b.complaints() };
    for (const [name, { error }] of Object.entries(complaints)) {
      for (const line of error.slice(0, 5)) log(`  ${name}'s log: ${line}`);
    }
    const remote = summarize(propagation.remoteMs);
    const local = summarize(propagation.localMs);
    const replication = medianOf(rounds, "replicationMs");
    const directMs = medianOf(rounds, "directMs");
    return {
      method:
        `Two compiled servers paired by a code on loopback, own data dirs, ports and machineIds, both ${pinning.startsWith("server") ? `on CPU ${SERVER_CPU}` : "unpinned"}. ` +
        `Propagation: ${WRITES} sequential one-key PUT /v1/sync on A after ${WARMUP_WRITES} unmeasured, each awaited on both servers' SSE streams ` +
        `(kind=sync.changed) before the next; latency = key shown on a stream - PUT about to be sent. Catch-up, median of ${CATCH_UP_ROUNDS} rounds: ` +
        `B stopped, ${CATCH_UP_KEYS / BATCH} PUTs of ${BATCH} keys (~${VALUE_CHARS}-byte values) on A, B started again on its data dir and port; ` +
        `replication = B listening -> the last key on B's stream (replayed from B's cursor before the stop), checked by GET /v1/sync on B; ` +
        `baseline = the same ${CATCH_UP_KEYS / BATCH} PUTs into an unpaired server started for the round (cold, like B); ${pinning}.`,
      figures: [
        { label: "propagation A -> B's stream p50", value: remote.p50, unit: "ms", target: { comparison: "<", value: TARGET_PROPAGATION_P50_MS } },
        { label: "propagation A -> B's stream p95", value: remote.p95, unit: "ms" },
        { label: "A's own stream p50 (baseline)", value: local.p50, unit: "ms" },
        { label: "A's own stream p95", value: local.p95, unit: "ms" },
        { label: "propagation p50 ratio to baseline", value: remote.p50 / local.p50, unit: "ratio" },
        { label: "propagation p95 ratio to baseline", value: remote.p95 / local.p95, unit: "ratio" },
        {
          label: `catch-up of ${CATCH_UP_KEYS.toLocaleString("en-US")} keys, B listening -> all on B`,
          value: replication,
          unit: "ms",
          target: { comparison: "<", value: TARGET_CATCH_UP_MS },
        },
        { label: "B start-up, spawn -> listening (not in the above)", value: medianOf(rounds, "startupMs"), unit: "ms" },
        { label: "same 10 PUTs into a fresh unpaired server (baseline)", value: directMs, unit: "ms" },
        { label: "catch-up ratio to baseline", value: replication / directMs, unit: "ratio" },
        { label: "the 10 PUTs on A while B was stopped", value: medianOf(rounds, "acceptedOnAMs"), unit: "ms" },
      ],
      details: {
        writes: WRITES,
        warmupWrites: WARMUP_WRITES,
        propagation: { remote, local, hop: summarize(propagation.hopMs), put: summarize(propagation.putMs) },
        catchUpKeys: CATCH_UP_KEYS,
        rounds,
        logComplaints: {
          a: { warn: complaints.a.warn.length, error: complaints.a.error.length, first: [...complaints.a.error, ...complaints.a.warn].slice(0, 5) },
          b: { warn: complaints.b.warn.length, error: complaints.b.error.length, first: [...complaints.b.error, ...complaints.b.warn].slice(0, 5) },
        },
        pinning,
      },
    };
  } finally {
    for (const stream of streams) stream.close();
    const failed = (await Promise.allSettled(servers.map((server) => server.remove()))).filter((outcome) => outcome.status === "rejected");
    if (failed.length > 0) log(`  ${failed.length} server(s) could not be stopped or removed cleanly`);
  }
}

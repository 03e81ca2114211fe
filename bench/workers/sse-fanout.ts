/**
 * The writer and the SSE clients of the delivery benchmark, in one process apart from the server so
 * that parsing 100 streams does not run on the server's event loop, and so that send and receive
 * times come from one clock (this process's performance.now()).
 */
import { finishWorker, readWorkerConfig } from "../lib/worker-io.ts";
import { summarize, type Summary } from "../lib/stats.ts";
import { withTimeout } from "../lib/processes.ts";

export interface FanoutConfig {
  baseUrl: string;
  token: string;
  clients: number;
  /** Appended and delivered before measuring, so that neither side's JIT warm-up counts as latency. */
  warmupEvents: number;
  events: number;
  intervalMs: number;
  connectTimeoutMs: number;
  /** How long to wait, after the last append, for frames still on their way. */
  drainTimeoutMs: number;
}

export interface FanoutResult {
  /** Client parsed the frame minus just before the writer sent the PUT, over every (client, event). */
  deliveryMs: Summary;
  /**
   * The same, for the first client to parse each event. The gap to the overall figures is mostly
   * this process working through 100 streams one after another, not the server.
   */
  firstClientMs: Summary;
  /** PUT sent to its response read, as the writer saw it. */
  appendMs: Summary;
  failedAppends: number;
  framesExpected: number;
  framesReceived: number;
  /** Clients that received exactly the appended events, each once, in globalEventId order. */
  clientsInOrder: number;
  problems: string[];
}

interface Frame {
  id?: string;
  event?: string;
  data: string;
  comments: string[];
}

/** One SSE block, parsed as EventSource would: `field: value` lines, `:` comments, data lines joined. */
function parseFrame(block: string): Frame {
  const frame: Frame = { data: "", comments: [] };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) {
      frame.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") frame.id = value;
    else if (field === "event") frame.event = value;
    else if (field === "data") data.push(value);
  }
  frame.data = data.join("\n");
  return frame;
}

/** One client on its own HTTP connection, timestamping each event frame once it has parsed it. */
class SseClient {
  readonly ids: number[] = [];
  readonly receivedAt: number[] = [];
  problem: string | undefined;
  /** Frames at or below this id are warm-up that arrived late: neither checked nor timed. */
  private warmupThrough = 0;
  private buffer = "";
  private readonly subscribed = Promise.withResolvers<void>();

  /** Resolves on the server's ": connected" comment, sent once the stream is subscribed to the log. */
  connect(url: string, token: string, signal: AbortSignal): Promise<void> {
    this.read(url, token, signal).catch((error: unknown) => {
      if (!signal.aborted) this.fail(error instanceof Error ? error.message : String(error));
    });
    return this.subscribed.promise;
  }

  private async read(url: string, token: string, signal: AbortSignal): Promise<void> {
    const headers = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
    const response = await fetch(url, { headers, signal });
    if (response.status !== 200 || !response.body) throw new Error(`the stream answered ${response.status}`);
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      this.buffer += decoder.decode(chunk, { stream: true });
      this.takeFrames();
    }
    if (!signal.aborted) this.fail("the server ended the stream");
  }

  private takeFrames(): void {
    for (let end = this.buffer.indexOf("\n\n"); end !== -1; end = this.buffer.indexOf("\n\n")) {
      const frame = parseFrame(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
      if (frame.comments.includes("connected")) this.subscribed.resolve();
      if (frame.id !== undefined) this.accept(frame);
    }
  }

  private accept(frame: Frame): void {
    const record = JSON.parse(frame.data) as { globalEventId?: unknown; kind?: unknown };
    const receivedAt = performance.now();
    const id = Number(frame.id);
    if (record.globalEventId !== id || record.kind !== frame.event) this.fail(`frame ${frame.id} disagrees with its data`);
    if (id <= this.warmupThrough) return;
    this.ids.push(id);
    this.receivedAt.push(receivedAt);
  }

  /**
   * Forgets the warm-up events (through `cursor`), so that only the measured ones are checked and timed;
   * a warm-up event still on its way (a client the warm-up's wait gave up on) is left out too.
   */
  forgetReceived(cursor: number): void {
    this.warmupThrough = cursor;
    this.ids.length = 0;
    this.receivedAt.length = 0;
  }

  private fail(problem: string): void {
    this.problem ??= problem;
    this.subscribed.reject(new Error(problem));
  }
}

async function readCursor(config: FanoutConfig): Promise<number> {
  const response = await fetch(`${config.baseUrl}/v1/events/cursor`, { headers: { authorization: `Bearer ${config.token}` } });
  if (response.status !== 200) throw new Error(`GET /v1/events/cursor answered ${response.status}`);
  return ((await response.json()) as { cursor: number }).cursor;
}

interface Appends {
  sentAt: number[];
  roundTripMs: number[];
  failed: number;
}

/**
 * One PUT per slot of a fixed schedule, each with a newer wallMs so that it changes the entry and
 * appends exactly one sync.changed event. Awaiting each answer keeps the appends, and so the
 * globalEventIds, in the order of sentAt.
 */
class Writer {
  private sequence = 0;
  private readonly wallBase = Date.now();
  private readonly headers: Record<string, string>;

  constructor(private readonly config: FanoutConfig) {
    this.headers = { authorization: `Bearer ${config.token}`, "content-type": "application/json" };
  }

  async append(count: number): Promise<Appends> {
    const appends: Appends = { sentAt: [], roundTripMs: [], failed: 0 };
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const wait = start + i * this.config.intervalMs - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      const sequence = this.sequence++;
      const timestamp = { wallMs: this.wallBase + sequence, counter: 0, deviceId: "bench" };
      const body = JSON.stringify({ entries: [{ key: "k", value: sequence, timestamp }] });
      const sentAt = performance.now();
      const response = await fetch(`${this.config.baseUrl}/v1/sync/bench`, { method: "PUT", headers: this.headers, body });
      await response.arrayBuffer();
      appends.sentAt.push(sentAt);
      appends.roundTripMs.push(performance.now() - sentAt);
      if (response.status !== 200) appends.failed++;
    }
    return appends;
  }
}

/** Polls (bounded by the drain timeout) until every healthy client holds every event. */
async function awaitDelivery(clients: SseClient[], events: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const pending = () => clients.some((client) => client.problem === undefined && client.ids.length < events);
  while (pending() && performance.now() < deadline) await Bun.sleep(10);
}

function describeMismatch(client: SseClient, expected: (index: number) => number, events: number): string | undefined {
  if (client.problem) return client.problem;
  if (client.ids.length !== events) return `received ${client.ids.length} of ${events} events`;
  const index = client.ids.findIndex((id, i) => id !== expected(i));
  return index === -1 ? undefined : `event ${index} had id ${client.ids[index]}, expected ${expected(index)}`;
}

function analyse(clients: SseClient[], cursorBefore: number, appends: Appends, events: number): FanoutResult {
  const expected = (index: number) => cursorBefore + index + 1;
  const deliveryMs: number[] = [];
  const firstClientMs: number[] = [];
  const problems: string[] = [];
  for (const [number, client] of clients.entries()) {
    const mismatch = describeMismatch(client, expected, events);
    if (mismatch) problems.push(`client ${number}: ${mismatch}`);
    client.ids.forEach((id, i) => {
      const event = id - cursorBefore - 1;
      const sentAt = appends.sentAt[event];
      if (sentAt === undefined) return;
      const latency = client.receivedAt[i]! - sentAt;
      deliveryMs.push(latency);
      firstClientMs[event] = Math.min(firstClientMs[event] ?? Infinity, latency);
    });
  }
  return {
    deliveryMs: summarize(deliveryMs),
    firstClientMs: summarize(firstClientMs.filter((latency) => latency !== undefined)),
    appendMs: summarize(appends.roundTripMs),
    failedAppends: appends.failed,
    framesExpected: clients.length * events,
    framesReceived: clients.reduce((sum, client) => sum + client.ids.length, 0),
    clientsInOrder: clients.length - problems.length,
    problems: problems.slice(0, 10),
  };
}

const config = readWorkerConfig<FanoutConfig>();
const abort = new AbortController();
const clients = Array.from({ length: config.clients }, () => new SseClient());
const writer = new Writer(config);
const streamUrl = `${config.baseUrl}/v1/events/stream`;
await withTimeout(
  Promise.all(clients.map((client) => client.connect(streamUrl, config.token, abort.signal))),
  config.connectTimeoutMs,
  `${config.clients} SSE clients did not all connect within ${config.connectTimeoutMs} ms`,
);
await writer.append(config.warmupEvents);
await awaitDelivery(clients, config.warmupEvents, config.drainTimeoutMs);
const cursorBefore = await readCursor(config);
for (const client of clients) client.forgetReceived(cursorBefore);
const appends = await writer.append(config.events);
await awaitDelivery(clients, config.events, config.drainTimeoutMs);
abort.abort();
await finishWorker(analyse(clients, cursorBefore, appends, config.events));

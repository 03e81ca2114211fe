/**
 * The one SSE reader of the benchmarks: a real HTTP connection to `GET /v1/events/stream`, parsed as
 * EventSource does (fields, comments, data lines joined), every event stamped with the wall time its
 * last bytes came off the socket, before parsing (parsing a megabyte-long frame takes this process
 * milliseconds that are not the server's). A frame whose `id:` or `event:` disagrees with its data
 * is a problem, and so is the stream ending.
 */

/** Wall ms on one clock for every process on the machine, so an agent's send time and a client's receive time compare. */
export const wallMs = (): number => performance.timeOrigin + performance.now();

export interface ReceivedEvent {
  /** The per-session sequence for session events, else the globalEventId. */
  id: number;
  globalEventId: number;
  kind: string;
  subjectId: string;
  payload: Record<string, unknown>;
  receivedAt: number;
}

export interface EventStreamOptions {
  /** Each event as it is parsed. */
  onEvent?(event: ReceivedEvent): void;
  /** Keep every event in `events` (the default); a long run that only needs `onEvent` keeps none. */
  keep?: boolean;
  /** Each read of the socket, as sent: what the server wrote. */
  onBytes?(bytes: Uint8Array): void;
  headers?: Record<string, string>;
}

export class EventStream {
  readonly events: ReceivedEvent[] = [];
  bytesRead = 0;
  readonly problems: string[] = [];
  private pending: string[] = [];
  private pendingEndsWithNewline = false;
  private ended = false;
  private readonly abort = new AbortController();
  private readonly connected = Promise.withResolvers<void>();

  private constructor(private readonly options: EventStreamOptions) {}

  /** Resolves on the server's ": connected" comment, sent once the stream is subscribed to the log. */
  static async open(url: string, token: string, options: EventStreamOptions = {}): Promise<EventStream> {
    const stream = new EventStream(options);
    void stream.read(url, token).catch((error: unknown) => {
      if (!stream.abort.signal.aborted) stream.fail(error instanceof Error ? error.message : String(error));
    });
    await stream.connected.promise;
    return stream;
  }

  close(): void {
    this.abort.abort();
  }

  /** Polls until `done` holds; throws when the stream broke or `timeoutMs` passed. */
  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (this.ended) throw new Error(`the event stream broke while waiting for ${what}: ${this.problems[0]}`);
      if (performance.now() > deadline) throw new Error(`no ${what} on the event stream within ${timeoutMs} ms`);
      await Bun.sleep(2);
    }
  }

  private async read(url: string, token: string): Promise<void> {
    const headers = { authorization: `Bearer ${token}`, accept: "text/event-stream", ...this.options.headers };
    const response = await fetch(url, { headers, signal: this.abort.signal, decompress: false });
    if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
    if (response.headers.get("content-encoding")) throw new Error("the event stream came compressed, which this reader does not decode");
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      const arrivedAt = wallMs();
      this.bytesRead += chunk.byteLength;
      this.options.onBytes?.(chunk);
      this.takeText(decoder.decode(chunk, { stream: true }), arrivedAt);
    }
    if (!this.abort.signal.aborted) this.fail("the server ended the event stream");
  }

  /**
   * Splits the stream into frames at blank lines. A frame can be megabytes long (a completed reply),
   * so its text is kept in pieces and only each new piece is searched, never the whole frame again.
   */
  private takeText(text: string, arrivedAt: number): void {
    if (text.length === 0) return;
    let start = 0;
    if (this.pendingEndsWithNewline && text.startsWith("\n")) {
      // The blank line straddles two reads.
      const block = this.pending.join("");
      this.pending = [];
      this.takeFrame(block.slice(0, -1), arrivedAt);
      start = 1;
    }
    for (let end = text.indexOf("\n\n", start); end !== -1; end = text.indexOf("\n\n", start)) {
      this.pending.push(text.slice(start, end));
      const block = this.pending.join("");
      this.pending = [];
      this.takeFrame(block, arrivedAt);
      start = end + 2;
    }
    const rest = text.slice(start);
    if (rest.length > 0) this.pending.push(rest);
    this.pendingEndsWithNewline = rest.endsWith("\n");
  }

  private takeFrame(block: string, arrivedAt: number): void {
    let id: string | undefined;
    let kind: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        if (line.slice(1).trim() === "connected") this.connected.resolve();
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") kind = value;
      else if (field === "data") data.push(value);
    }
    if (id === undefined) return;
    const event = { ...(JSON.parse(data.join("\n")) as Omit<ReceivedEvent, "receivedAt">), receivedAt: arrivedAt };
    if (event.globalEventId !== Number(id) || event.kind !== kind) this.problems.push(`frame ${id} disagrees with its data`);
    if (this.options.keep !== false) this.events.push(event);
    this.options.onEvent?.(event);
  }

  private fail(problem: string): void {
    this.ended = true;
    this.problems.push(problem);
    this.connected.reject(new Error(problem));
  }
}

/** A conversation item as events carry it. */
const itemOf = (event: ReceivedEvent) => event.payload.item as { id: string; role: string; text: string };

/** The first event at or after index `from` that `match`es; a loop, not a copy: the callers poll this every few ms. */
function findFrom(stream: EventStream, from: number, match: (event: ReceivedEvent) => boolean): ReceivedEvent | undefined {
  for (let index = from; index < stream.events.length; index++) if (match(stream.events[index]!)) return stream.events[index];
  return undefined;
}

/** The reply item a turn made: the assistant `session.message.created` of `sessionId` at or after event `from`. */
export function replyItemId(stream: EventStream, sessionId: string, from = 0): string | undefined {
  const created = findFrom(stream, from, (e) => e.subjectId === sessionId && e.kind === "session.message.created" && itemOf(e).role === "assistant");
  return created && itemOf(created).id;
}

/** The `session.message.completed` event of one item, once received. */
export const completionOf = (stream: EventStream, itemId: string, from = 0) =>
  findFrom(stream, from, (event) => event.kind === "session.message.completed" && itemOf(event).id === itemId);

/** The `session.message.delta` events of one item, in the order received. */
export const deltasOf = (stream: EventStream, itemId: string, from = 0): { text: string; receivedAt: number }[] =>
  stream.events
    .slice(from)
    .filter((event) => event.kind === "session.message.delta" && event.payload.itemId === itemId)
    .map((event) => ({ text: event.payload.text as string, receivedAt: event.receivedAt }));

/** Whether the reply `sessionId` began at or after event `from` has completed. */
export function replyDone(stream: EventStream, sessionId: string, from = 0): boolean {
  const itemId = replyItemId(stream, sessionId, from);
  return itemId !== undefined && completionOf(stream, itemId, from) !== undefined;
}

/** Per chunk, `<index>@<wall ms sent>` padded with dots: its lag runs to the arrival of the delta that brought its last character. */
export function stampedChunkLags(deltas: { text: string; receivedAt: number }[]): { lags: { sentAt: number; lagMs: number }[]; problem?: string } {
  const text = deltas.map((delta) => delta.text).join("");
  const lags: { sentAt: number; lagMs: number }[] = [];
  let deltaIndex = 0;
  let deltaEnd = deltas[0]?.text.length ?? 0;
  let offset = 0;
  for (const line of text.split("\n")) {
    if (line === "" && offset === text.length) break;
    offset += line.length + 1;
    const match = /^(\d+)@(\d+\.\d+)\.*$/.exec(line);
    if (!match || Number(match[1]) !== lags.length) return { lags, problem: `chunk ${lags.length} reads ${JSON.stringify(line.slice(0, 40))}` };
    while (deltaEnd < offset && deltaIndex < deltas.length - 1) deltaEnd += deltas[++deltaIndex]!.text.length;
    lags.push({ sentAt: Number(match[2]), lagMs: deltas[deltaIndex]!.receivedAt - Number(match[2]) });
  }
  return { lags };
}

/** Replies as they complete, on a stream of `session.message.completed` that keeps none: a soak makes thousands. */
export async function openReplyWaiter(url: string, token: string) {
  const waiting = new Map<string, PromiseWithResolvers<string>>();
  const stream = await EventStream.open(`${url}/v1/events/stream?kind=session.message.completed`, token, {
    keep: false,
    onEvent(event) {
      if (itemOf(event).role !== "assistant") return;
      waiting.get(event.subjectId)?.resolve(itemOf(event).text);
      waiting.delete(event.subjectId);
    },
  });
  return {
    /** The text of the next reply of `sessionId` (one turn at a time per session); ask before sending the prompt. */
    next(sessionId: string) {
      const waiter = Promise.withResolvers<string>();
      waiting.set(sessionId, waiter);
      return waiter.promise;
    },
    close: () => stream.close(),
  };
}

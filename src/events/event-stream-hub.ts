import type { EventLog, LoggedEvent } from "./event-log.ts";
import { matchesFilter, type EventFilter } from "./event-filter.ts";
import type { Logger } from "../logging/logger.ts";
import { streamOutput, type StreamEncoding, type StreamOutput } from "./stream-output.ts";
import type { RevocationWatch, TokenAuthorization } from "../auth/revocation-watch.ts";

export interface EventStreamLimits {
  /** How often a comment line is sent on a quiet stream, for proxies and dead-peer detection. */
  heartbeatMs: number;
  /** Bytes a client may fall behind before it is dropped (it can resume with Last-Event-ID). */
  maxQueuedBytes: number;
  /** Events read from the database per step of a replay. */
  replayPageSize: number;
  /** How often the tokens of streams (and terminals' sockets) that can be revoked are checked again. */
  authorizationCheckMs: number;
}

export const defaultStreamLimits: EventStreamLimits = {
  heartbeatMs: 15_000,
  maxQueuedBytes: 4 * 1024 * 1024,
  replayPageSize: 500,
  authorizationCheckMs: 1_000,
};

export interface StreamRequest extends EventFilter {
  /** Replay events after this globalEventId; null means live events only, from now. */
  after: number | null;
  authorization?: TokenAuthorization;
  /** The name of the token that opened it (`admin` too): with `sessionId`, that token watches the session. */
  tokenName?: string;
  /** How the bytes go on the wire (the request's Accept-Encoding); as they are without it. */
  encoding?: StreamEncoding;
}

const encoder = new TextEncoder();
const PREAMBLE = encoder.encode("retry: 2000\n: connected\n\n");
const HEARTBEAT = encoder.encode(": heartbeat\n\n");
/** Encodes each event once, however many clients receive it. */
class FrameCache {
  private readonly frames = new WeakMap<LoggedEvent, Uint8Array>();

  frameOf(event: LoggedEvent): Uint8Array {
    let frame = this.frames.get(event);
    if (!frame) {
      const { record } = event;
      frame = encoder.encode(`id: ${record.globalEventId}\nevent: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`);
      this.frames.set(event, frame);
    }
    return frame;
  }
}

/**
 * One SSE client. A single writer loop sends the queue and waits whenever the socket pushes back
 * (Bun's direct streams report backpressure; a plain ReadableStream would be drained into memory
 * without limit). Replay pages are read only when the queue is empty, so a backlog is paced by the
 * client. The connection subscribes before it replays and sends nothing at or below the last id it
 * queued, so replay and live join with no gap and no duplicate.
 */
class StreamConnection {
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private lastQueuedId: number;
  /** Live events heard while the replay is still reading the database; null once live. */
  private heardDuringReplay: LoggedEvent[] | null;
  private wake: (() => void) | undefined;
  private controller: ReadableStreamDirectController | undefined;
  private output: StreamOutput | undefined;
  private closed = false;
  /** Closed gracefully while the writer loop slept: the loop ends the encoding, then the response. */
  private endedByLoop = false;
  private readonly unsubscribe: () => void;
  private readonly unwatchRevocation: (() => void) | undefined;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(
    private readonly log: EventLog,
    private readonly request: StreamRequest,
    private readonly limits: EventStreamLimits,
    private readonly logger: Logger,
    private readonly frames: FrameCache,
    revocations: RevocationWatch,
    private readonly onClosed: () => void,
  ) {
    this.lastQueuedId = request.after ?? log.cursor();
    this.heardDuringReplay = request.after === null ? null : [];
    this.unsubscribe = log.subscribe((event) => this.hear(event));
    this.unwatchRevocation = request.authorization && revocations.watch(request.authorization, () => this.endRevoked());
    this.heartbeat = setInterval(() => {
      if (this.queue.length === 0) this.push(HEARTBEAT, true);
    }, limits.heartbeatMs);
  }

  async run(controller: ReadableStreamDirectController): Promise<void> {
    this.controller = controller;
    const output = streamOutput(controller, this.request.encoding);
    this.output = output;
    try {
      await output.write(PREAMBLE);
      await output.flush();
      while (!this.closed) {
        const chunk = this.queue.shift();
        if (chunk) {
          this.queuedBytes -= chunk.byteLength;
          await output.write(chunk);
        } else if (this.heardDuringReplay !== null) {
          this.replayPage();
        } else {
          await output.flush();
          // Something may have been queued while the flush was pending; sleep only on an empty queue.
          if (this.queue.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
      }
      if (this.endedByLoop) {
        await output.end();
        controller.close();
      }
    } catch {
      // the peer went away mid-write
    } finally {
      this.close();
      output.dispose();
    }
  }

  /**
   * Ends the response. With `abort`, it is ended as failed: a graceful end would wait for data that a
   * client which stopped reading never takes, keeping its connection and buffers.
   */
  close(abort?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.unwatchRevocation?.();
    clearInterval(this.heartbeat);
    this.onClosed();
    // A compressed stream ends with its trailer, or its client reports a broken one; only the loop can
    // send it, and only when it is not stuck on a client that stopped reading.
    if (abort === undefined && this.wake !== undefined && this.output?.endsWithTrailer) {
      this.endedByLoop = true;
      this.wake();
      return;
    }
    this.wake?.();
    try {
      this.controller?.close(abort);
    } catch {
      // already closed by the peer
    }
    this.output?.dispose();
  }

  /** Ends the stream as failed, at once: its client may not read what is still queued. */
  private endRevoked(): void {
    this.logger.info(`closed an event stream: the token "${this.request.authorization?.tokenName}" is no longer valid`);
    this.close(new Error("the stream's token was revoked"));
  }

  private hear(event: LoggedEvent): void {
    if (this.heardDuringReplay === null) {
      this.queueEvent(event, true);
      return;
    }
    this.heardDuringReplay.push(event);
    if (this.heardDuringReplay.length > this.limits.replayPageSize * 20) this.drop("could not finish its replay");
  }

  private replayPage(): void {
    // Compaction passed this stream while it replayed: what followed its last id is gone. Ended, it
    // resumes from that id and is refused 410, so its client re-reads instead of skipping a gap.
    if (this.lastQueuedId > 0 && this.lastQueuedId < this.log.horizon()) {
      this.drop("was passed by compaction while it replayed");
      return;
    }
    const page = this.log.read(this.lastQueuedId, this.limits.replayPageSize, this.request.sessionId);
    for (const event of page) this.queueEvent(event, false);
    if (page.length < this.limits.replayPageSize && this.heardDuringReplay !== null) {
      const heard = this.heardDuringReplay;
      this.heardDuringReplay = null;
      for (const event of heard) this.queueEvent(event, true);
    }
  }

  private queueEvent(event: LoggedEvent, live: boolean): void {
    if (event.record.globalEventId <= this.lastQueuedId) return;
    this.lastQueuedId = event.record.globalEventId;
    if (matchesFilter(event, this.request)) this.push(this.frames.frameOf(event), live);
  }

  /** Live pushes are what can overrun a client that does not read; replay pushes are paced. */
  private push(chunk: Uint8Array, live: boolean): void {
    if (this.closed) return;
    this.queue.push(chunk);
    this.queuedBytes += chunk.byteLength;
    if (live && this.queuedBytes > this.limits.maxQueuedBytes) this.drop("fell behind");
    else this.wake?.();
  }

  private drop(reason: string): void {
    this.logger.warn(`event stream client ${reason}; dropping it`, {
      lastQueuedId: this.lastQueuedId,
      queuedBytes: this.queuedBytes,
    });
    this.close(new Error(`event stream client ${reason}`));
  }
}

/**
 * Serves the event log as Server-Sent Events and keeps track of the open streams. A stream opened
 * with a named token ends when `revocations` finds that token revoked.
 */
export class EventStreamHub {
  private readonly connections = new Set<StreamConnection>();
  /** Open streams per client that named itself, and who is told when a client comes or goes. */
  private readonly clientStreams = new Map<string, number>();
  private readonly presenceListeners: Array<(clientId: string, connected: boolean) => void> = [];
  /** Open streams per token and the session they are filtered to (`token\nsession`): who watches a session. */
  private readonly watchers = new Map<string, number>();
  private readonly frames = new FrameCache();

  constructor(
    private readonly log: EventLog,
    private readonly logger: Logger,
    private readonly limits: EventStreamLimits,
    private readonly revocations: RevocationWatch,
  ) {}

  get openStreams(): number {
    return this.connections.size;
  }

  open(request: StreamRequest): ReadableStream<Uint8Array> {
    // Behind the horizon, or from another log (a reset data dir): resuming would silently skip events.
    if (request.after !== null) this.log.checkResumable(request.after);
    const watching = request.tokenName !== undefined && request.sessionId !== undefined ? `${request.tokenName}\n${request.sessionId}` : undefined;
    const connection = new StreamConnection(this.log, request, this.limits, this.logger, this.frames, this.revocations, () => {
      this.connections.delete(connection);
      if (request.clientId !== undefined) this.countClient(request.clientId, -1);
      if (watching !== undefined) countIn(this.watchers, watching, -1);
    });
    this.connections.add(connection);
    if (request.clientId !== undefined) this.countClient(request.clientId, 1);
    if (watching !== undefined) countIn(this.watchers, watching, 1);
    const source: Bun.DirectUnderlyingSource<Uint8Array> = {
      type: "direct",
      pull: (controller) => connection.run(controller),
      cancel: () => connection.close(),
    };
    return new ReadableStream<Uint8Array>(source);
  }

  /** Whether a client holds a stream open (it named itself with `clientId`). */
  isConnected(clientId: string): boolean {
    return (this.clientStreams.get(clientId) ?? 0) > 0;
  }

  /** Whether a stream opened with this token and filtered to this session is open (the console's session page). */
  isWatching(tokenName: string, sessionId: string): boolean {
    return (this.watchers.get(`${tokenName}\n${sessionId}`) ?? 0) > 0;
  }

  /** Told when a client's first stream opens and when its last one closes. */
  onPresence(listener: (clientId: string, connected: boolean) => void): void {
    this.presenceListeners.push(listener);
  }

  private countClient(clientId: string, delta: number): void {
    const before = this.clientStreams.get(clientId) ?? 0;
    const after = countIn(this.clientStreams, clientId, delta);
    if ((before === 0) !== (after === 0)) for (const listener of this.presenceListeners) listener(clientId, after > 0);
  }

  /** Ends every open stream, so that a graceful shutdown is not held open by long-lived clients. */
  closeAll(): void {
    for (const connection of [...this.connections]) connection.close();
  }
}

/** Adds `delta` to a count kept only while above zero; returns the new count. */
function countIn(counts: Map<string, number>, key: string, delta: number): number {
  const after = (counts.get(key) ?? 0) + delta;
  if (after > 0) counts.set(key, after);
  else counts.delete(key);
  return after;
}

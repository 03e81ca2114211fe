import type { EventLog, LoggedEvent } from "./event-log.ts";
import { matchesFilter, type EventFilter } from "./event-filter.ts";
import type { Logger } from "../logging/logger.ts";

export interface EventStreamLimits {
  /** How often a comment line is sent to keep proxies and dead-peer detection honest. */
  heartbeatMs: number;
  /** Bytes a client may fall behind before it is dropped (it can resume with Last-Event-ID). */
  maxQueuedBytes: number;
  /** Events read from the database per step of a replay. */
  replayPageSize: number;
}

export const defaultStreamLimits: EventStreamLimits = {
  heartbeatMs: 15_000,
  maxQueuedBytes: 4 * 1024 * 1024,
  replayPageSize: 500,
};

export interface StreamRequest extends EventFilter {
  /** Replay events after this globalEventId; null means live events only, from now. */
  after: number | null;
}

const encoder = new TextEncoder();
const frames = new WeakMap<LoggedEvent, Uint8Array>();

/** One encoding per event, shared by every client that receives it. */
function frameOf(event: LoggedEvent): Uint8Array {
  let frame = frames.get(event);
  if (!frame) {
    const { record } = event;
    frame = encoder.encode(`id: ${record.globalEventId}\nevent: ${record.kind}\ndata: ${JSON.stringify(record)}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

/**
 * Serves the event log as Server-Sent Events. Each stream subscribes before it replays, buffers what
 * arrives during the replay, and sends nothing at or below the last id it sent, so replay and live
 * join with no gap and no duplicate. A client whose unread bytes pass the limit is cut off rather than
 * allowed to hold memory or slow the others.
 */
export class EventStreamHub {
  private readonly closers = new Set<() => void>();

  constructor(
    private readonly log: EventLog,
    private readonly logger: Logger,
    private readonly limits: EventStreamLimits = defaultStreamLimits,
  ) {}

  get openStreams(): number {
    return this.closers.size;
  }

  open(request: StreamRequest): ReadableStream<Uint8Array> {
    const { log, limits, logger, closers } = this;
    const filter: EventFilter = { sessionId: request.sessionId, kinds: request.kinds };
    let lastSent = request.after ?? log.cursor();
    let pendingLive: LoggedEvent[] | null = request.after === null ? null : [];
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    let unsubscribe = () => {};
    let heartbeat: ReturnType<typeof setInterval> | undefined;

    const cleanup = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clearInterval(heartbeat);
      closers.delete(close);
    };
    const close = () => {
      if (closed) return;
      cleanup();
      try {
        controller.close();
      } catch {
        // already errored or closed by the peer
      }
    };
    const write = (chunk: Uint8Array): void => {
      if (closed) return;
      controller.enqueue(chunk);
      // Only live pushes can overrun: replay pages are pulled when the client has room.
      if (pendingLive === null && (controller.desiredSize ?? 0) < 0) {
        logger.warn("event stream client fell behind; dropping it", { lastSent, limitBytes: limits.maxQueuedBytes });
        close();
      }
    };
    const send = (event: LoggedEvent): void => {
      if (event.record.globalEventId <= lastSent) return;
      lastSent = event.record.globalEventId;
      if (matchesFilter(event, filter)) write(frameOf(event));
    };
    const onLive = (event: LoggedEvent): void => {
      if (pendingLive === null) return send(event);
      pendingLive.push(event);
      if (pendingLive.length > limits.replayPageSize * 20) {
        logger.warn("event stream client could not finish its replay; dropping it", { lastSent });
        close();
      }
    };

    return new ReadableStream<Uint8Array>(
      {
        start(c) {
          controller = c;
          closers.add(close);
          unsubscribe = log.subscribe(onLive);
          c.enqueue(encoder.encode(`retry: 2000\n: connected\n\n`));
          heartbeat = setInterval(() => write(encoder.encode(": heartbeat\n\n")), limits.heartbeatMs);
        },
        // Replay runs a page per pull, so a large backlog is paced by the client's reading.
        pull() {
          if (pendingLive === null || closed) return;
          const page = log.read(lastSent, limits.replayPageSize, filter.sessionId);
          for (const event of page) send(event);
          if (page.length < limits.replayPageSize) {
            const live = pendingLive;
            pendingLive = null;
            for (const event of live) send(event);
          }
        },
        cancel() {
          cleanup();
        },
      },
      { highWaterMark: limits.maxQueuedBytes, size: (chunk) => chunk?.byteLength ?? 0 },
    );
  }

  /** Ends every open stream, so that a graceful shutdown is not held open by long-lived clients. */
  closeAll(): void {
    for (const close of [...this.closers]) close();
  }
}

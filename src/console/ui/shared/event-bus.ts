import type { EventRecord } from "../../../schemas/events.ts";
import { failureText } from "./failure-text.ts";
import { type SseFrame, SseFrameReader } from "./sse-frames.ts";

/** An event record as the stream sends it (the spec's Event record). */
export type StreamedEvent = EventRecord;

/** What a part of the page follows, and from where. */
export interface EventSubscription {
  /** The kinds wanted, as the stream's `kind=` patterns (`machine.updated`, `machine.*`); absent: every kind. */
  kinds?: readonly string[];
  /**
   * One session's events (the session page). They come on a stream of that session's own: the server's
   * filters narrow, never widen, and a stream on a session is what tells the server someone watches it.
   */
  sessionId?: string;
  /** The event cursor the subscriber's state was read at: every event after it is handed over, once. */
  after: number;
  /** Handed the events in the order they happened: each as it comes, or with `byFrame` once per animation frame. */
  onEvents(events: StreamedEvent[]): void;
  byFrame?: boolean;
  /** Told, as a sentence for the page, when `onEvents` threw or a frame of its kinds could not be read. */
  onProblem(sentence: string): void;
}

/** How long to wait before opening a dropped stream again: doubling from the first to the longest. */
export interface RetryDelays {
  firstMs: number;
  longestMs: number;
  /** A stream that stayed open this long was working: its drop starts again from the first delay. */
  steadyMs: number;
}

/** What the bus needs of the page it runs in (the browser's in event-stream.ts; a test's elsewhere). */
export interface StreamEnvironment {
  /** Opens the stream with this query, resuming after `lastEventId` when it is given. */
  open(query: string, lastEventId: string | null, signal: AbortSignal): Promise<Response>;
  /** Resolves once the page may hold a stream (at once when it may), or when `signal` aborts. */
  whenShown(signal: AbortSignal): Promise<void>;
  /** Calls `listener` each time the page is hidden; returns the function that stops that. */
  onHidden(listener: () => void): () => void;
  /** Resolves after `ms`, sooner when the server may be back, or when `signal` aborts. */
  pause(ms: number, signal: AbortSignal): Promise<void>;
  /** Runs `flush` before the next paint; returns the function that cancels it. */
  nextFrame(flush: () => void): () => void;
  /** The stream refused the cursor (409, 410): what the page shows can only be read again from scratch. */
  readAgain(): void;
  /** Writes a failure where whoever looks into the page finds it (the browser's console). */
  report(message: string, failure: unknown): void;
}

/** Whether a kind is one of the patterns, as the server's `kind=` filter decides (src/events/event-filter.ts). */
export const kindMatches = (patterns: readonly string[] | undefined, kind: string): boolean =>
  patterns === undefined || patterns.some((pattern) => (pattern.endsWith(".*") ? kind.startsWith(pattern.slice(0, -1)) : kind === pattern));

/** The kinds a stream opened with (null: every kind), and whether they hold every kind a subscriber wants. */
const coveredBy = (opened: ReadonlySet<string> | null, wanted: readonly string[] | undefined): boolean =>
  opened === null || (wanted?.every((kind) => kindMatches([...opened], kind)) ?? false);

/** The wait before the next try after `failures` tries in a row failed. */
export const retryDelay = (delays: RetryDelays, failures: number): number => Math.min(delays.longestMs, delays.firstMs * 2 ** failures);

const problemSentence = (what: string, failure: unknown) =>
  `An update from the server could not be ${what} (${failureText(failure)}); what is shown may be out of date: reload the page.`;

/** One subscription on a stream: where it has got to, and the events waiting for its next frame. */
class Subscriber {
  /** The newest event id it has been handed or has been shown to have no part in. */
  seen: number;
  /** The stream it is on was opened with its kinds and from its cursor or earlier. */
  covered = false;
  private waiting: StreamedEvent[] = [];
  private cancelFrame: (() => void) | null = null;

  constructor(
    readonly subscription: EventSubscription,
    private readonly environment: StreamEnvironment,
  ) {
    this.seen = subscription.after;
  }

  take(event: StreamedEvent): void {
    if (!this.subscription.byFrame) {
      this.hand([event]);
      return;
    }
    this.waiting.push(event);
    this.cancelFrame ??= this.environment.nextFrame(() => {
      this.cancelFrame = null;
      const events = this.waiting;
      this.waiting = [];
      this.hand(events);
    });
  }

  /** A handler that throws is told, and so is the page; the stream goes on (opening it again would bring the same event). */
  private hand(events: StreamedEvent[]): void {
    try {
      this.subscription.onEvents(events);
    } catch (failure) {
      this.problem("shown", failure);
    }
  }

  problem(what: string, failure: unknown): void {
    this.environment.report(`An event-stream subscriber's update could not be ${what}`, failure);
    this.subscription.onProblem(problemSentence(what, failure));
  }

  stop(): void {
    this.cancelFrame?.();
  }
}

/** Why a stream's connection ended. */
type Ending = "dropped" | "reopen" | "hidden" | "stopped" | "read again";

/**
 * The stream of one scope (every session, or one session): one connection carrying every kind its
 * subscribers want, opened from the earliest cursor among them, each event handed to those it concerns
 * and not yet handed. A subscriber whose kinds or cursor the open connection does not cover opens it again.
 */
class ScopeStream {
  private readonly subscribers = new Set<Subscriber>();
  private readonly stopped = new AbortController();
  private connection: AbortController | null = null;
  /** The kinds the connection was opened with (null: every kind) and the newest id it carried (or its cursor). */
  private opened: ReadonlySet<string> | null = null;
  private position = 0;
  private opens = 0;

  constructor(
    private readonly sessionId: string | undefined,
    private readonly environment: StreamEnvironment,
    private readonly delays: RetryDelays,
    private readonly onEmpty: () => void,
  ) {
    void this.run();
  }

  add(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
    if (this.connection === null) return;
    if (coveredBy(this.opened, subscriber.subscription.kinds) && subscriber.seen >= this.position) subscriber.covered = true;
    else this.connection.abort("reopen");
  }

  remove(subscriber: Subscriber): void {
    subscriber.stop();
    this.subscribers.delete(subscriber);
    if (this.subscribers.size > 0) return;
    this.stopped.abort("stopped");
    this.onEmpty();
  }

  private query(): string {
    const subscribed = [...this.subscribers].map((subscriber) => subscriber.subscription);
    const everyKind = subscribed.some((subscription) => subscription.kinds === undefined);
    this.opened = everyKind ? null : new Set(subscribed.flatMap((subscription) => subscription.kinds ?? []));
    this.position = Math.min(...[...this.subscribers].map((subscriber) => subscriber.seen));
    const params = new URLSearchParams();
    if (this.sessionId !== undefined) params.set("sessionId", this.sessionId);
    if (this.opened !== null) params.set("kind", [...this.opened].join(","));
    params.set("after", String(this.position));
    return params.toString();
  }

  private async run(): Promise<void> {
    const stopHidden = this.environment.onHidden(() => this.connection?.abort("hidden"));
    let failures = 0;
    while (!this.stopped.signal.aborted) {
      await this.environment.whenShown(this.stopped.signal);
      if (this.stopped.signal.aborted) break;
      const openedAt = performance.now();
      const ending = await this.follow();
      if (ending === "read again") {
        this.environment.readAgain();
        break;
      }
      if (ending !== "dropped") continue;
      failures = performance.now() - openedAt >= this.delays.steadyMs ? 0 : failures;
      await this.environment.pause(retryDelay(this.delays, failures++), this.stopped.signal);
    }
    stopHidden();
  }

  /** Holds one connection until it ends; says why it did. */
  private async follow(): Promise<Ending> {
    const connection = new AbortController();
    this.connection = connection;
    const signal = AbortSignal.any([this.stopped.signal, connection.signal]);
    const query = this.query();
    const resumeFrom = this.opens++ > 0 ? String(this.position) : null;
    for (const subscriber of this.subscribers) subscriber.covered = true;
    try {
      const response = await this.environment.open(query, resumeFrom, signal);
      // A cursor past the newest event (409: the server's data was reset or restored) or behind the
      // log's horizon (410: what followed it was compacted away while the page slept). Resuming would
      // skip events; only reading everything again is right.
      if (response.status === 409 || response.status === 410) return "read again";
      if (!response.ok || !response.body) return "dropped";
      const frames = new SseFrameReader();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "dropped";
        for (const frame of frames.push(value)) this.dispatch(frame);
      }
    } catch {
      // Dropped, refused, unreachable (the page says so: connection.ts), or ended here on purpose.
      return signal.aborted ? (signal.reason as Ending) : "dropped";
    } finally {
      this.connection = null;
    }
  }

  private dispatch(frame: SseFrame): void {
    const id = frame.id !== undefined && /^\d+$/.test(frame.id) ? Number(frame.id) : null;
    let event: StreamedEvent | null = null;
    let unreadable: unknown = null;
    try {
      event = JSON.parse(frame.data) as StreamedEvent;
    } catch (failure) {
      unreadable = failure;
    }
    const kind = event?.kind ?? frame.event;
    for (const subscriber of this.subscribers) {
      if (!subscriber.covered || (id !== null && id <= subscriber.seen)) continue;
      if (id !== null) subscriber.seen = id;
      if (kind !== undefined && !kindMatches(subscriber.subscription.kinds, kind)) continue;
      if (event) subscriber.take(event);
      else subscriber.problem("read", unreadable);
    }
    if (id !== null) this.position = id;
  }
}

/**
 * The console's one owner of the event stream: each part of the page subscribes to the kinds (or the
 * session) it shows, from the cursor it read them at; the bus holds one connection per scope, cuts its
 * frames, hands each event to those it concerns, and opens a dropped connection again, waiting longer
 * after each failure in a row.
 */
export class EventBus {
  private readonly scopes = new Map<string, ScopeStream>();

  constructor(
    private readonly environment: StreamEnvironment,
    private readonly delays: RetryDelays,
  ) {}

  /** Starts handing the subscription its events; returns the function that stops it. */
  subscribe(subscription: EventSubscription): () => void {
    const key = subscription.sessionId ?? "";
    let scope = this.scopes.get(key);
    if (!scope) {
      const made = new ScopeStream(subscription.sessionId, this.environment, this.delays, () => {
        if (this.scopes.get(key) === made) this.scopes.delete(key);
      });
      scope = made;
      this.scopes.set(key, made);
    }
    const subscriber = new Subscriber(subscription, this.environment);
    const joined = scope;
    joined.add(subscriber);
    return () => joined.remove(subscriber);
  }
}

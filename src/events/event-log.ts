import type { Store } from "../store/database.ts";
import type { EventRepository, StoredEvent } from "../store/event-repository.ts";
import { ADDRESSED_TO_SUBJECT, type EventRecord } from "../schemas/events.ts";
import type { Static, TSchema } from "@sinclair/typebox";
import { ConflictError, GoneError } from "../errors.ts";
import { WriteBehindEvents } from "./write-behind-events.ts";
import { systemClock, type Clock } from "../clock.ts";

/** An event as the log hands it around: the public record plus what filters need. */
export interface LoggedEvent {
  record: EventRecord;
  sessionId: string | null;
  /** The one client this event is for (its subject), for kinds declared so; null for everyone's events. */
  addressedTo: string | null;
}

export type EventListener = (event: LoggedEvent) => void;

/** Event kinds with the schemas of their payloads; each module declares its own (in src/schemas). */
export type EventKinds = Record<string, TSchema>;

export interface AppendOptions {
  /** Makes this a session event: `id` is then the session's own gap-free sequence. */
  sessionId?: string;
}

export interface EventLogOptions {
  /** How long an event published ahead of storing waits before it is stored with the others that came meanwhile. */
  writeBehindMs?: number;
}

/**
 * A streamed reply's deltas wait this long to be stored together (what a crash can lose of a reply).
 * Each commit writes whole pages besides the text (the table's and its indexes' last pages, the page
 * map): a second's deltas per commit keep that under the text's own size (docs/performance.md).
 */
const DEFAULT_WRITE_BEHIND_MS = 1000;
/** Past this many waiting events, the next one is stored at once. */
const MAX_WAITING = 512;
/** Ids published ahead of storing are reserved in the database this many at a time (one small write each). */
const RESERVED_IDS = 4096;

/**
 * The durable, ordered event log. `append` must run inside the transaction of the change it reports;
 * listeners hear of the event only after that transaction commits, in globalEventId order. It takes
 * only the kinds a module declared; a service sees the log typed to its own module's kinds.
 *
 * `appendLive` publishes at once and stores a moment later with what followed (a streamed reply's
 * deltas: a commit each would write whole pages for a few words). Such events are stored before any
 * other transaction runs, so the table stays in id order, and reads see them after its rows. Their ids
 * are reserved in the database first: a crash loses at most the last moment of a reply, and a client
 * that saw it is told to re-read (409) instead of missing what comes next under the same ids.
 */
export class EventLog<Kinds extends EventKinds = EventKinds> {
  private readonly listeners = new Set<EventListener>();
  private readonly accepted: EventKinds = {};
  private horizonId: number;
  /** The highest globalEventId given out, and how far ids are reserved for events published ahead. */
  private lastId: number;
  private reservedThrough: number;
  /** Ids published but never stored (a crash): a cursor among them cannot resume. */
  private readonly lost: Array<[number, number]>;
  private readonly writeBehind: WriteBehindEvents;
  /** The newest stored globalEventId, as read after the `commits`-th transaction. */
  private storedMax: { commits: number; id: number } | undefined;

  constructor(
    private readonly store: Store,
    private readonly events: EventRepository,
    private readonly serverId: string,
    /** Dates each event (`createdAt`), which compaction's retention compares with the same clock. */
    private readonly clock: Clock = systemClock,
    options: EventLogOptions = {},
  ) {
    this.horizonId = events.horizon();
    const stored = events.highestEverStored();
    this.reservedThrough = events.reservedThrough();
    this.lastId = Math.max(stored, this.reservedThrough);
    this.lost = events.lostRanges().filter(([, to]) => to > this.horizonId);
    if (this.reservedThrough > stored) this.recordLost([stored + 1, this.reservedThrough]);
    this.writeBehind = new WriteBehindEvents(store, events, options.writeBehindMs ?? DEFAULT_WRITE_BEHIND_MS);
    store.setBeforeTransaction(() => this.writeBehind.storeWaiting());
  }

  /** Takes these kinds from now on (a module's events). */
  accept(kinds: EventKinds): void {
    Object.assign(this.accepted, kinds);
  }

  /** Every kind the log takes, with its payload's schema (the OpenAPI document lists them). */
  get kinds(): EventKinds {
    return { ...this.accepted };
  }

  append<K extends keyof Kinds & string>(kind: K, subjectId: string, payload: Static<Kinds[K]>, options: AppendOptions = {}): EventRecord {
    this.checkKind(kind);
    if (!this.store.inTransaction) {
      throw new Error(`event ${kind} must be appended inside the transaction of the change it reports`);
    }
    const stored = this.stored(++this.lastId, kind, subjectId, payload, options.sessionId ?? null);
    this.events.insert(stored);
    const logged = this.logged(stored, payload);
    this.store.onCommit(() => this.publish(logged));
    return logged.record;
  }

  /**
   * Publishes now and stores within `writeBehindMs`, with the events that follow (see the class).
   * Throws, publishing nothing, while the store fails: the caller keeps what it had and tries again.
   */
  appendLive<K extends keyof Kinds & string>(kind: K, subjectId: string, payload: Static<Kinds[K]>, options: AppendOptions = {}): EventRecord {
    if (this.store.inTransaction) return this.append(kind, subjectId, payload, options);
    this.checkKind(kind);
    // While storing fails, the write-behind's own retries (with backoff) find when it works again: a
    // try here on every delta would hold the event loop for the busy timeout each time.
    if (this.writeBehind.failing) throw this.writeBehind.failure;
    if (this.writeBehind.size >= MAX_WAITING) this.writeBehind.storeWaiting();
    const globalId = this.lastId + 1;
    if (globalId > this.reservedThrough) {
      const through = globalId + RESERVED_IDS - 1;
      this.store.transaction(() => this.events.setReservedThrough(through));
      this.reservedThrough = through;
    }
    this.lastId = globalId;
    const stored = this.stored(globalId, kind, subjectId, payload, options.sessionId ?? null);
    const logged = this.logged(stored, payload);
    this.writeBehind.add(stored, logged);
    this.publish(logged);
    return logged.record;
  }

  /**
   * For a read of the stored state: stores what was published ahead if it can, and returns the cursor
   * that state matches (before the first event still unstored, if storing failed).
   */
  storedCursor(): number {
    // Not while storing fails (its retries run on a timer): a read must not wait for a locked database.
    if (!this.writeBehind.failing) {
      try {
        this.writeBehind.storeWaiting();
      } catch {
        // the state is read as stored; the client gets the rest from the stream
      }
    }
    const firstUnstored = this.writeBehind.firstId();
    return firstUnstored === undefined ? this.cursor() : firstUnstored - 1;
  }

  /** Before the database closes: stores what waits and releases the ids reserved for it. */
  close(): void {
    try {
      this.store.transaction(() => this.events.setReservedThrough(0));
      this.reservedThrough = 0;
    } catch {
      // the next start treats the reserved ids as lost: clients there re-read
    }
  }

  private checkKind(kind: string): void {
    if (!(kind in this.accepted)) throw new Error(`event ${kind} is not a kind any module declared`);
  }

  private stored(globalId: number, kind: string, subjectId: string, payload: unknown, sessionId: string | null): StoredEvent {
    return {
      globalId,
      sessionId,
      sessionSeq: sessionId === null ? null : (this.writeBehind.lastSessionSeq(sessionId) ?? this.events.nextSessionSeq(sessionId) - 1) + 1,
      subjectId,
      subjectRevision: (this.writeBehind.lastSubjectRevision(subjectId) ?? this.events.nextSubjectRevision(subjectId) - 1) + 1,
      kind,
      payload: JSON.stringify(payload),
      createdAt: new Date(this.clock.now()).toISOString(),
    };
  }

  private logged(stored: StoredEvent, payload: unknown): LoggedEvent {
    return { record: this.toRecord(stored, payload), sessionId: stored.sessionId, addressedTo: this.addressee(stored.kind, stored.subjectId) };
  }

  /** Remembers ids published but never stored, in the database too if it takes the write. */
  private recordLost(range: [number, number]): void {
    // A second crash before any event was stored finds the same reservation again.
    if (this.lost.some(([from, to]) => from === range[0] && to === range[1])) return;
    this.lost.push(range);
    try {
      this.store.transaction(() => this.events.setLostRanges(this.lost));
    } catch {
      // kept for this run; a later start finds the reservation again
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The globalEventId of the newest event published (stored, or about to be). */
  cursor(): number {
    const waiting = this.writeBehind.lastId();
    if (waiting !== undefined) return waiting;
    // The highest id ever stored, not the highest still there: a deleted session's events or a
    // compaction that removed them all must not move a cursor back (a client at it would be "ahead").
    // Events are written only in transactions: it is read again once one commits (every list page
    // says the cursor, and the query was a quarter of a cached page's cost).
    if (this.store.inTransaction) return this.events.highestEverStored();
    const commits = this.store.commits;
    if (this.storedMax?.commits !== commits) this.storedMax = { commits, id: this.events.highestEverStored() };
    return this.storedMax.id;
  }

  /** Events at or below this globalEventId may have been compacted away (0: the log is whole). */
  horizon(): number {
    return this.horizonId;
  }

  /**
   * Compaction removed every event through `globalId`: remembers the new horizon (stored by the
   * caller in the transaction that removed them), so cursors behind it are refused from now on.
   */
  compactedThrough(globalId: number): void {
    this.horizonId = Math.max(this.horizonId, globalId);
  }

  /**
   * Throws unless the events after `after` can all still be served: 410 behind the horizon (0, from the
   * start of what is kept, is always served), 409 ahead of the log (another log: a reset data dir).
   */
  checkResumable(after: number): void {
    if (after > 0 && after < this.horizonId) {
      throw new GoneError(
        `the events after ${after} are no longer kept (the log keeps those after ${this.horizonId}); re-read the state and resume from ${this.cursor()}`,
      );
    }
    if (this.lost.some(([from, to]) => after >= from && after <= to)) {
      throw new ConflictError(
        `the events after ${after} were lost when the server stopped before storing them (a crash); re-read the state and resume from ${this.cursor()}`,
      );
    }
    const cursor = this.cursor();
    if (after > cursor) {
      throw new ConflictError(
        `the cursor ${after} is ahead of this server's event log (${cursor}); its log was reset, so re-read the state and resume from ${cursor}`,
      );
    }
  }

  /** Events after a globalEventId: the stored ones, then those still waiting to be stored. */
  read(afterGlobalId: number, limit: number, sessionId?: string): LoggedEvent[] {
    const stored = this.events.listAfter({ afterGlobalId, limit, sessionId }).map((event) => this.logged(event, JSON.parse(event.payload)));
    return stored.length < limit ? [...stored, ...this.writeBehind.after(afterGlobalId, limit - stored.length, sessionId)] : stored;
  }

  /**
   * Forgets every event of a deleted session (its deltas, messages, questions, usage): no replay,
   * page or peer gets them again. Global ids are never reused, so cursors stay valid.
   */
  forgetSession(sessionId: string): void {
    this.events.removeSession(sessionId);
  }

  /** One session's events after its own sequence number `afterId` (the records' `id`); 410 when some were compacted away. */
  readSession(sessionId: string, afterId: number, limit: number): EventRecord[] {
    const compacted = afterId > 0 ? this.events.compactedSessionSeq(sessionId) : 0;
    if (afterId < compacted) {
      throw new GoneError(`the events of session ${sessionId} after ${afterId} are no longer kept (it keeps those after ${compacted}); re-read the session`);
    }
    const stored = this.events.listSession(sessionId, afterId, limit).map((event) => this.toRecord(event, JSON.parse(event.payload)));
    if (stored.length >= limit) return stored;
    return [...stored, ...this.writeBehind.afterSessionSeq(sessionId, afterId, limit - stored.length).map((event) => event.record)];
  }

  private addressee(kind: string, subjectId: string): string | null {
    return (this.accepted[kind] as Record<string, unknown> | undefined)?.[ADDRESSED_TO_SUBJECT] === true ? subjectId : null;
  }

  private publish(event: LoggedEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private toRecord(stored: StoredEvent, payload: unknown): EventRecord {
    return {
      id: stored.sessionSeq ?? stored.globalId,
      globalEventId: stored.globalId,
      subjectRevision: stored.subjectRevision,
      serverId: this.serverId,
      kind: stored.kind,
      subjectId: stored.subjectId,
      createdAt: stored.createdAt,
      payload,
    };
  }
}

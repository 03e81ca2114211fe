import type { Store } from "../store/database.ts";
import type { EventRepository, StoredEvent } from "../store/event-repository.ts";
import { ADDRESSED_TO_SUBJECT, type EventRecord } from "../schemas/events.ts";
import type { Static, TSchema } from "@sinclair/typebox";
import { ConflictError, GoneError } from "../errors.ts";

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

/**
 * The durable, ordered event log. `append` must run inside the transaction of the change it reports;
 * listeners hear of the event only after that transaction commits, in globalEventId order. It takes
 * only the kinds a module declared; a service sees the log typed to its own module's kinds.
 */
export class EventLog<Kinds extends EventKinds = EventKinds> {
  private readonly listeners = new Set<EventListener>();
  private readonly accepted: EventKinds = {};
  private horizonId: number;

  constructor(
    private readonly store: Store,
    private readonly events: EventRepository,
    private readonly serverId: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.horizonId = events.horizon();
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
    if (!(kind in this.accepted)) throw new Error(`event ${kind} is not a kind any module declared`);
    if (!this.store.inTransaction) {
      throw new Error(`event ${kind} must be appended inside the transaction of the change it reports`);
    }
    const sessionId = options.sessionId ?? null;
    const stored: Omit<StoredEvent, "globalId"> = {
      sessionId,
      sessionSeq: sessionId === null ? null : this.events.nextSessionSeq(sessionId),
      subjectId,
      subjectRevision: this.events.nextSubjectRevision(subjectId),
      kind,
      payload: JSON.stringify(payload),
      createdAt: this.now().toISOString(),
    };
    const globalId = this.events.insert(stored);
    const logged: LoggedEvent = { record: this.toRecord({ ...stored, globalId }, payload), sessionId, addressedTo: this.addressee(kind, subjectId) };
    this.store.onCommit(() => this.publish(logged));
    return logged.record;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The durable cursor: the globalEventId of the newest committed event. */
  cursor(): number {
    return this.events.maxGlobalId();
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
    const cursor = this.cursor();
    if (after > cursor) {
      throw new ConflictError(
        `the cursor ${after} is ahead of this server's event log (${cursor}); its log was reset, so re-read the state and resume from ${cursor}`,
      );
    }
  }

  read(afterGlobalId: number, limit: number, sessionId?: string): LoggedEvent[] {
    return this.events.listAfter({ afterGlobalId, limit, sessionId }).map((stored) => ({
      record: this.toRecord(stored, JSON.parse(stored.payload)),
      sessionId: stored.sessionId,
      addressedTo: this.addressee(stored.kind, stored.subjectId),
    }));
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
    return this.events.listSession(sessionId, afterId, limit).map((stored) => this.toRecord(stored, JSON.parse(stored.payload)));
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

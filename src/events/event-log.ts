import type { Store } from "../store/database.ts";
import type { EventRepository, StoredEvent } from "../store/event-repository.ts";
import type { EventRecord } from "../schemas/events.ts";
import type { EventKind, EventPayload } from "./catalog.ts";

/** An event as the log hands it around: the public record plus what filters need. */
export interface LoggedEvent {
  record: EventRecord;
  sessionId: string | null;
}

export type EventListener = (event: LoggedEvent) => void;

export interface AppendOptions {
  /** Makes this a session event: `id` is then the session's own gap-free sequence. */
  sessionId?: string;
}

/**
 * The durable, ordered event log. `append` must run inside the transaction of the change it reports;
 * listeners hear of the event only after that transaction commits, in globalEventId order.
 */
export class EventLog {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly store: Store,
    private readonly events: EventRepository,
    private readonly serverId: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  append<K extends EventKind>(kind: K, subjectId: string, payload: EventPayload<K>, options: AppendOptions = {}): EventRecord {
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
    const logged: LoggedEvent = { record: this.toRecord({ ...stored, globalId }, payload), sessionId };
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

  read(afterGlobalId: number, limit: number, sessionId?: string): LoggedEvent[] {
    return this.events
      .listAfter({ afterGlobalId, limit, sessionId })
      .map((stored) => ({ record: this.toRecord(stored, JSON.parse(stored.payload)), sessionId: stored.sessionId }));
  }

  /** One session's events after its own sequence number `afterId` (the records' `id`). */
  readSession(sessionId: string, afterId: number, limit: number): EventRecord[] {
    return this.events.listSession(sessionId, afterId, limit).map((stored) => this.toRecord(stored, JSON.parse(stored.payload)));
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

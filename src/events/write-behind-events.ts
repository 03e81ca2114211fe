import type { Store } from "../store/database.ts";
import type { EventRepository, StoredEvent } from "../store/event-repository.ts";
import { backoffMs } from "../store/storage-errors.ts";
import type { LoggedEvent } from "./event-log.ts";

interface Unstored {
  stored: StoredEvent;
  logged: LoggedEvent;
}

/**
 * Events published before they are stored (a streamed reply's deltas), stored together a moment
 * later: one commit for many deltas instead of one each, which writes whole pages. They always follow
 * every stored event (each transaction stores them first), so readers find them after the table's rows.
 * A store that fails keeps them here and is tried again with backoff.
 */
export class WriteBehindEvents {
  private unstored: Unstored[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private lastFailure: unknown;
  private storing = false;

  constructor(
    private readonly store: Store,
    private readonly events: EventRepository,
    private readonly delayMs: number,
  ) {}

  add(stored: StoredEvent, logged: LoggedEvent): void {
    this.unstored.push({ stored, logged });
    if (!this.timer) this.schedule(this.failures === 0 ? this.delayMs : backoffMs(this.failures));
  }

  get size(): number {
    return this.unstored.length;
  }

  /** Whether the last attempt to store them failed (the database locked or full). */
  get failing(): boolean {
    return this.failures > 0;
  }

  /** Why the last attempt failed, while it is failing. */
  get failure(): unknown {
    return this.lastFailure;
  }

  /** Stores every waiting event in one transaction; throws, keeping them, when the store fails. */
  storeWaiting(): void {
    if (this.unstored.length === 0 || this.storing) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.unstored;
    this.storing = true;
    try {
      this.store.transaction(() => {
        for (const { stored } of batch) this.events.insert(stored);
      });
    } catch (error) {
      this.failures++;
      this.lastFailure = error;
      this.schedule(backoffMs(this.failures));
      throw error;
    } finally {
      this.storing = false;
    }
    this.unstored = [];
    this.failures = 0;
    this.lastFailure = undefined;
  }

  /** The first waiting event's globalEventId: every event below it is stored. */
  firstId(): number | undefined {
    return this.unstored[0]?.stored.globalId;
  }

  lastId(): number | undefined {
    return this.unstored[this.unstored.length - 1]?.stored.globalId;
  }

  /** The session's newest sequence number among the waiting events (undefined: none of its events waits). */
  lastSessionSeq(sessionId: string): number | undefined {
    return this.findLast((event) => event.sessionId === sessionId)?.sessionSeq ?? undefined;
  }

  lastSubjectRevision(subjectId: string): number | undefined {
    return this.findLast((event) => event.subjectId === subjectId)?.subjectRevision;
  }

  /** Waiting events after a globalEventId, optionally of one session, up to `limit`. */
  after(globalId: number, limit: number, sessionId?: string): LoggedEvent[] {
    return this.select((event) => event.globalId > globalId && (sessionId === undefined || event.sessionId === sessionId), limit);
  }

  /** A session's waiting events after its own sequence number. */
  afterSessionSeq(sessionId: string, sessionSeq: number, limit: number): LoggedEvent[] {
    return this.select((event) => event.sessionId === sessionId && (event.sessionSeq ?? 0) > sessionSeq, limit);
  }

  private select(match: (event: StoredEvent) => boolean, limit: number): LoggedEvent[] {
    const found: LoggedEvent[] = [];
    for (const { stored, logged } of this.unstored) {
      if (found.length >= limit) break;
      if (match(stored)) found.push(logged);
    }
    return found;
  }

  private findLast(match: (event: StoredEvent) => boolean): StoredEvent | undefined {
    for (let index = this.unstored.length - 1; index >= 0; index--) {
      const stored = this.unstored[index]?.stored;
      if (stored && match(stored)) return stored;
    }
    return undefined;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.storeWaiting();
      } catch {
        // kept, and tried again on the backoff storeWaiting() scheduled
      }
    }, ms);
    this.timer.unref?.();
  }
}

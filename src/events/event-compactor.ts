import type { Store } from "../store/database.ts";
import type { EventRepository } from "../store/event-repository.ts";
import type { ConversationRepository } from "../store/conversation-repository.ts";
import type { EventLog } from "./event-log.ts";
import type { Clock, ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import { storageProblem } from "../store/storage-errors.ts";

export interface RetentionPolicy {
  /** Events older than this are removed. */
  retentionMs: number;
  /** Past this many bytes of data in the database, the oldest events go too, however young. */
  maxBytes: number;
}

export interface CompactionTuning {
  /** Events removed per transaction: small, so a streaming reply's writes never wait long for the lock. */
  batchSize: number;
  /** The pause between two batches, in which the server serves what came in meanwhile. */
  pauseMs: number;
  /** How long after the start the first pass runs, and how long between passes. */
  firstPassMs: number;
  intervalMs: number;
}

export const defaultCompactionTuning: CompactionTuning = { batchSize: 50, pauseMs: 5, firstPassMs: 60_000, intervalMs: 3_600_000 };

export interface CompactionReport {
  removed: number;
  horizon: number;
}

export interface EventCompactorDeps {
  store: Store;
  events: EventRepository;
  conversation: ConversationRepository;
  log: EventLog;
  clock: Clock;
  logger: Logger;
  policy: RetentionPolicy;
  tuning?: Partial<CompactionTuning>;
}

/**
 * Keeps the event log bounded. Each pass removes the oldest events, a small transaction at a time:
 * those past the retention period, then, while the database is over its size cap, the oldest of the
 * rest. A reply whose text lives in its deltas gets that text into its row in the same transaction
 * that removes them, and a reply still being written is never touched, so what the state needs stays.
 * Each transaction also moves the horizon, so a kill -9 between two leaves a consistent log and the
 * next pass goes on from there.
 */
export class EventCompactor {
  private readonly tuning: CompactionTuning;
  private timer: ClockTimer | undefined;
  private running: Promise<CompactionReport> | undefined;
  private stopped = false;
  private lastFailure: string | undefined;

  constructor(private readonly deps: EventCompactorDeps) {
    this.tuning = { ...defaultCompactionTuning, ...deps.tuning };
  }

  /** Passes on a timer, the first a while after the start (the server is busy starting agents then). */
  start(): void {
    this.schedule(this.tuning.firstPassMs);
  }

  /** Ends the timer and waits for a pass in flight to stop after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.clock.clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Why the last pass failed (the database locked or full), until one succeeds. */
  get failure(): string | undefined {
    return this.lastFailure;
  }

  /** One pass; a pass already running is joined rather than doubled. */
  compact(): Promise<CompactionReport> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.compact()
        .catch((error) => this.deps.logger.error("event log compaction failed", { error }))
        .finally(() => this.schedule(this.tuning.intervalMs));
    }, ms);
    this.timer.unref?.();
  }

  private async pass(): Promise<CompactionReport> {
    const { store, logger } = this.deps;
    let removed = 0;
    try {
      while (!this.stopped) {
        const through = this.nextBatchEnd();
        if (through === null) break;
        removed += store.transaction(() => this.removeThrough(through));
        // A real pause, whatever the clock: the event loop serves what came in meanwhile.
        await Bun.sleep(this.tuning.pauseMs);
      }
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = storageProblem(error)?.message ?? (error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      // Freed pages go back to the file system and the removed events out of the WAL.
      if (removed > 0) {
        store.scrubDeleted();
        logger.info("event log compacted", { removed, horizon: this.deps.log.horizon() });
      }
    }
    return { removed, horizon: this.deps.log.horizon() };
  }

  /** The newest event of the next batch to remove, or null when nothing is due. */
  private nextBatchEnd(): number | null {
    const { events, conversation, store, policy, clock } = this.deps;
    // A reply being written keeps all of its deltas (they are its text), and what follows them.
    const firstLive = conversation.firstDeltaOfGenerating();
    const limit = firstLive === null ? this.deps.log.cursor() : firstLive - 1;
    const batch = events.oldest(limit, this.tuning.batchSize);
    if (batch.length === 0) return null;
    if (store.usedBytes() > policy.maxBytes) return batch[batch.length - 1]?.globalId ?? null;
    const before = new Date(clock.now() - policy.retentionMs).toISOString();
    // Up to the first event still within the retention period: the log is removed from its start only.
    const kept = batch.findIndex((event) => event.createdAt >= before);
    const expired = kept === -1 ? batch.length : kept;
    return expired === 0 ? null : (batch[expired - 1]?.globalId ?? null);
  }

  private removeThrough(globalId: number): number {
    const { events, conversation, log } = this.deps;
    conversation.foldRepliesThrough(globalId);
    const removed = events.removeThrough(globalId);
    events.setHorizon(globalId);
    this.deps.store.onCommit(() => log.compactedThrough(globalId));
    return removed;
  }
}

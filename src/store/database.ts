import { Database } from "bun:sqlite";
import { WalCheckpointer } from "./wal-checkpointer.ts";

/**
 * The one owner of the SQLite database. Domain code reaches the tables through the repository
 * modules beside this file and groups its writes with `transaction`, so that a state change and the
 * event that reports it commit together.
 */
export class Store {
  readonly db: Database;
  private depth = 0;
  private afterCommit: Array<() => void> = [];
  private checkpointer: WalCheckpointer | undefined;

  private constructor(
    db: Database,
    private readonly path: string,
  ) {
    this.db = db;
  }

  static open(path: string): Store {
    const db = new Database(path, { create: true, strict: true });
    // WAL keeps readers off the writer's back; NORMAL is durable across a process crash (kill -9),
    // which is what we promise: a committed write is in the WAL file before the response is sent.
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA foreign_keys = ON");
    return new Store(db, path);
  }

  /**
   * For the long-running server: checkpoints move to a worker thread, so their fsync no longer
   * stalls the write request that happens to cross SQLite's threshold.
   */
  startBackgroundCheckpoints(onFailure: (error: unknown) => void): void {
    this.checkpointer ??= WalCheckpointer.start(this.db, this.path, onFailure);
  }

  async stopBackgroundCheckpoints(): Promise<void> {
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
  }

  /**
   * Runs `fn` in a transaction (a savepoint when nested). Callbacks registered with `onCommit` run
   * only after the outermost transaction commits, and are dropped if it rolls back.
   */
  transaction<T>(fn: () => T): T {
    const pendingBefore = this.afterCommit.length;
    this.depth++;
    let result: T;
    try {
      const run = this.db.transaction(fn);
      result = this.depth === 1 ? run.immediate() : run();
    } catch (error) {
      this.afterCommit.length = pendingBefore;
      throw error;
    } finally {
      this.depth--;
    }
    if (this.depth === 0) {
      const callbacks = this.afterCommit;
      this.afterCommit = [];
      for (const callback of callbacks) callback();
    }
    return result;
  }

  /** Registers work (live event delivery) to run once the enclosing transaction has committed. */
  onCommit(callback: () => void): void {
    if (this.depth === 0) throw new Error("onCommit called outside a transaction");
    this.afterCommit.push(callback);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Integrity as SQLite sees it, for the health report. */
  quickCheck(): string {
    const row = this.db.query<{ quick_check: string }, []>("PRAGMA quick_check").get();
    return row?.quick_check ?? "unknown";
  }

  journalMode(): string {
    const row = this.db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get();
    return row?.journal_mode ?? "unknown";
  }

  close(): void {
    this.checkpointer?.terminate();
    this.checkpointer = undefined;
    this.db.close();
  }
}

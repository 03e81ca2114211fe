import { Database } from "bun:sqlite";
import { scrub } from "./scrub.ts";
import { chmodSync, closeSync, openSync } from "node:fs";
import { WalCheckpointer, type CheckpointTuning } from "./wal-checkpointer.ts";
import { storageProblem, type StorageProblem } from "./storage-errors.ts";

/** A write failure that has not been followed by a successful write yet. */
export interface WriteFailure extends StorageProblem {
  since: string;
  /** This connection's change count when the failure began: a commit that changes rows ends it. */
  changesAt: number;
}

/**
 * The database holds transcripts and token hashes, so it is 0600. SQLite gives the `-wal` and `-shm`
 * files it creates the database file's mode, so the file is made private before SQLite opens it;
 * files an older build or a crash left with wider modes are narrowed too.
 */
function keepPrivate(path: string): void {
  closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
    }
  }
}

/**
 * The one owner of the SQLite database. Domain code reaches the tables through the repository
 * modules beside this file and groups its writes with `transaction`, so that a state change and the
 * event that reports it commit together.
 */
export class Store {
  readonly db: Database;
  private depth = 0;
  private commitCount = 0;
  private afterCommit: Array<() => void> = [];
  private checkpointer: WalCheckpointer | undefined;
  private failing: WriteFailure | undefined;
  private beforeTransaction: (() => void) | undefined;

  private constructor(
    db: Database,
    private readonly path: string,
  ) {
    this.db = db;
  }

  /**
   * `busyTimeoutMs`: how long a write waits for another connection's lock. SQLite waits synchronously,
   * so the server keeps it short (its event loop stalls meanwhile) and retries background writes
   * itself; short-lived CLI commands can wait longer.
   */
  static open(path: string, options: { busyTimeoutMs?: number; synchronous?: "NORMAL" | "OFF" } = {}): Store {
    keepPrivate(path);
    const db = new Database(path, { create: true, strict: true });
    // WAL keeps readers off the writer's back; NORMAL is durable across a process crash (kill -9),
    // which is what we promise: a committed write is in the WAL file before the response is sent.
    // OFF only for a database made aside and synced whole (new-database.ts). Set before the switch to
    // WAL, which writes a new database's header.
    db.exec(`PRAGMA synchronous = ${options.synchronous ?? "NORMAL"}`);
    // Set before the first page is written (a new database): deletions can then give space back with
    // incremental_vacuum. An older database keeps its mode until a VACUUM (setting it would write).
    if (db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count === 0) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    db.exec("PRAGMA foreign_keys = ON");
    // Sorts (a long reply's deltas joined in order) stay in memory: spilled, they wrote the reply to a
    // temporary file on every read of it.
    db.exec("PRAGMA temp_store = MEMORY");
    // What is deleted is overwritten with zeros in the database file, not left readable in free pages.
    db.exec("PRAGMA secure_delete = ON");
    return new Store(db, path);
  }

  /**
   * For the long-running server: checkpoints move to a worker thread, so their fsync no longer
   * stalls the write request that happens to cross SQLite's threshold.
   */
  startBackgroundCheckpoints(onFailure: (error: unknown) => void, tuning?: CheckpointTuning): void {
    this.checkpointer ??= WalCheckpointer.start(this.db, this.path, onFailure, tuning);
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
    if (this.depth === 0) this.beforeTransaction?.();
    const pendingBefore = this.afterCommit.length;
    this.depth++;
    let result: T;
    try {
      const run = this.db.transaction(fn);
      result = this.depth === 1 ? run.immediate() : run();
    } catch (error) {
      this.afterCommit.length = pendingBefore;
      const problem = storageProblem(error);
      if (problem) this.failing ??= { ...problem, since: new Date().toISOString(), changesAt: this.totalChanges() };
      throw error;
    } finally {
      this.depth--;
    }
    if (this.depth === 0) {
      this.commitCount++;
      if (this.failing && this.totalChanges() > this.failing.changesAt) this.failing = undefined;
      this.checkpointer?.afterCommit();
      const callbacks = this.afterCommit;
      this.afterCommit = [];
      for (const callback of callbacks) callback();
    }
    return result;
  }

  /**
   * Runs reads in one deferred transaction: a consistent snapshot that takes no write lock, so reads
   * go on while another process holds it (or the disk is full).
   */
  read<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    return this.db.transaction(fn).deferred();
  }

  private totalChanges(): number {
    return this.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()?.n ?? 0;
  }

  /**
   * Runs `hook` before each outermost transaction begins; if it throws, the transaction does not run.
   * The event log stores there what it published ahead of storing, so ids stay in order in the table.
   */
  setBeforeTransaction(hook: () => void): void {
    this.beforeTransaction = hook;
  }

  /** Registers work (live event delivery) to run once the enclosing transaction has committed. */
  onCommit(callback: () => void): void {
    if (this.depth === 0) throw new Error("onCommit called outside a transaction");
    this.afterCommit.push(callback);
  }

  /** Set while writes fail for storage reasons (locked, full, I/O), until one succeeds again. */
  get writeFailure(): WriteFailure | undefined {
    return this.failing;
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** Outermost transactions committed by this process: what was read outside one stays true until it changes. */
  get commits(): number {
    return this.commitCount;
  }

  /** Throws when SQLite cannot answer a query (the file is gone, unreadable, corrupt). */
  ping(): void {
    this.db.query("SELECT 1").get();
  }

  /**
   * After a deletion: gives free pages back to the file system, and copies the WAL into the database
   * and empties it, so that what was deleted is in neither file (deleted cells are zeroed: secure_delete).
   * The checkpoint worker does it off the event loop, trying again while readers keep the WAL busy;
   * without one (a CLI command) it is done here, once.
   */
  scrubDeleted(): void {
    if (this.checkpointer) {
      this.checkpointer.scrub();
      return;
    }
    try {
      scrub(this.db);
    } catch {
      // locked: the next deletion scrubs again
    }
  }

  /** Bytes the database's pages hold, free pages not counted (what the data takes, not the file). */
  usedBytes(): number {
    const pragma = (name: string) => this.db.query<Record<string, number>, []>(`PRAGMA ${name}`).get()?.[name] ?? 0;
    return (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
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

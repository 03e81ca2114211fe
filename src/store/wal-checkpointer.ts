import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { workerUrl } from "../system/worker-url.ts";

/** SQLite's own threshold, restored if the background checkpoints stop working. */
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** How the background checkpoints run: the server keeps the defaults; tests make them small. */
export interface CheckpointTuning {
  /**
   * Each checkpoint copies every page changed since the last one: seconds apart, the pages a streamed
   * reply's commits all touch (the tables' last pages, their indexes') are copied once, not once a commit.
   */
  intervalMs: number;
  /** The main connection's automatic checkpoint threshold, a backstop only: background checkpoints keep the WAL far below it. */
  backstopPages: number;
  /**
   * Past this, the writer copies the WAL itself, waiting for the worker if it must. The backstop alone
   * cannot bound a burst: its checkpoint is skipped whenever the worker holds the checkpoint lock, and a
   * worker slowed down by a busy machine holds it most of the time while the WAL grows on.
   */
  walLimitBytes: number;
}

export const DEFAULT_CHECKPOINT_TUNING: CheckpointTuning = { intervalMs: 2000, backstopPages: 4000, walLimitBytes: 20 * 1024 * 1024 };
/** How many commits go by between looks at the WAL's size (a stat each). */
const COMMITS_PER_SIZE_CHECK = 64;
/**
 * A checkpoint never waits for another one to finish (SQLite answers busy at once), so the writer
 * asks again this often, this many times, while the worker's copy runs: at most half a second.
 */
const TRUNCATE_RETRY_MS = 5;
const TRUNCATE_ATTEMPTS = 100;

/**
 * Moves WAL checkpoints to a worker thread. The main connection keeps automatic checkpoints at a
 * higher threshold, so a burst of writes faster than the worker copies still cannot grow the WAL
 * without bound; if the worker fails, the main connection goes back to SQLite's default.
 */
export class WalCheckpointer {
  private commitsSinceCheck = 0;
  /** Whether the worker has opened its connection; until then there is nothing for it to close. */
  private started = false;
  private worker: Worker | undefined;
  /** Until it fires the worker is not there: its first checkpoint would come no sooner anyway. */
  private launchTimer: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    private readonly main: Database,
    private readonly path: string,
    private readonly onFailure: (error: unknown) => void,
    private readonly tuning: CheckpointTuning,
  ) {}

  /**
   * Sets the main connection's backstop now and starts the worker one interval later (or at the first
   * scrub): a server stopped within its first seconds (a CLI's, a test's) never pays for a thread.
   */
  static start(main: Database, path: string, onFailure: (error: unknown) => void, tuning: CheckpointTuning = DEFAULT_CHECKPOINT_TUNING): WalCheckpointer {
    main.exec(`PRAGMA wal_autocheckpoint = ${tuning.backstopPages}`);
    const checkpointer = new WalCheckpointer(main, path, onFailure, tuning);
    checkpointer.launchTimer = setTimeout(() => checkpointer.launch(), tuning.intervalMs);
    checkpointer.launchTimer.unref?.();
    return checkpointer;
  }

  private launch(): Worker {
    clearTimeout(this.launchTimer);
    if (this.worker) return this.worker;
    const worker = new Worker(workerUrl("store/checkpoint-worker.ts"));
    this.worker = worker;
    const onStarted = (event: MessageEvent) => {
      if (event.data !== "started") return;
      this.started = true;
      worker.removeEventListener("message", onStarted);
    };
    worker.addEventListener("message", onStarted);
    worker.addEventListener("error", (event) => {
      this.fallBack();
      this.onFailure(event.error ?? event.message);
    });
    worker.postMessage({ type: "start", path: this.path, intervalMs: this.tuning.intervalMs });
    return worker;
  }

  /** After each outermost commit: a WAL grown past its limit is copied back and emptied now. */
  afterCommit(): void {
    if (++this.commitsSinceCheck < COMMITS_PER_SIZE_CHECK) return;
    this.commitsSinceCheck = 0;
    let walBytes: number;
    try {
      walBytes = statSync(`${this.path}-wal`).size;
    } catch {
      return;
    }
    if (walBytes <= this.tuning.walLimitBytes) return;
    for (let attempt = 1; attempt <= TRUNCATE_ATTEMPTS; attempt++) {
      if (this.truncateWal()) return;
      Bun.sleepSync(TRUNCATE_RETRY_MS);
    }
    // Readers held it all along: the next commit looks again; the write itself has committed.
    this.commitsSinceCheck = COMMITS_PER_SIZE_CHECK - 1;
  }

  /** Copies the WAL back and starts it over; false while another checkpoint or a reader is in the way. */
  private truncateWal(): boolean {
    try {
      // busy_timeout covers the wait for readers; the worker's checkpoint answers busy at once.
      return this.main.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get()?.busy === 0;
    } catch {
      return false;
    }
  }

  /** Asks the worker to give free pages back and empty the WAL (after a deletion). */
  scrub(): void {
    this.launch().postMessage({ type: "scrub" });
  }

  /**
   * Lets the worker close its connection, then ends it. A worker still starting (its thread takes a
   * few hundred ms to load after a process starts) is ended at once: waiting for it made every stop
   * soon after a start that much slower, and it has opened nothing yet.
   */
  async stop(): Promise<void> {
    if (this.started) await this.request({ type: "stop" }, "stopped").catch(() => undefined);
    this.terminate();
  }

  /** Ends the worker at once (its connection dies with it; SQLite is safe against that). */
  terminate(): void {
    clearTimeout(this.launchTimer);
    this.worker?.terminate();
    this.fallBack();
  }

  private fallBack(): void {
    try {
      this.main.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the main connection is already closed
    }
  }

  private request(message: unknown, reply: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error(`the checkpoint worker did not answer "${reply}"`)), 5000);
      const onMessage = (event: MessageEvent) => {
        if (event.data !== reply) return;
        clearTimeout(timeout);
        this.worker?.removeEventListener("message", onMessage);
        resolve();
      };
      this.worker?.addEventListener("message", onMessage);
      this.worker?.postMessage(message);
    });
  }
}

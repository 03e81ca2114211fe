import type { Database } from "bun:sqlite";

/** SQLite's own threshold, restored if the background checkpoints stop working. */
const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** A backstop only: background checkpoints keep the WAL far below this in normal use. */
const BACKSTOP_AUTOCHECKPOINT_PAGES = 4000;
const CHECKPOINT_INTERVAL_MS = 250;

/**
 * Moves WAL checkpoints to a worker thread. The main connection keeps automatic checkpoints at a
 * higher threshold, so a burst of writes faster than the worker copies still cannot grow the WAL
 * without bound; if the worker fails, the main connection goes back to SQLite's default.
 */
export class WalCheckpointer {
  private constructor(
    private readonly worker: Worker,
    private readonly main: Database,
  ) {}

  static start(main: Database, path: string, onFailure: (error: unknown) => void): WalCheckpointer {
    main.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    const worker = new Worker(new URL("./checkpoint-worker.ts", import.meta.url).href);
    const checkpointer = new WalCheckpointer(worker, main);
    worker.addEventListener("error", (event) => {
      checkpointer.fallBack();
      onFailure(event.error ?? event.message);
    });
    worker.postMessage({ type: "start", path, intervalMs: CHECKPOINT_INTERVAL_MS });
    return checkpointer;
  }

  /** Lets the worker close its connection, then ends it. */
  async stop(): Promise<void> {
    await this.request({ type: "stop" }, "stopped").catch(() => undefined);
    this.terminate();
  }

  /** Ends the worker at once (its connection dies with it; SQLite is safe against that). */
  terminate(): void {
    this.worker.terminate();
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
        this.worker.removeEventListener("message", onMessage);
        resolve();
      };
      this.worker.addEventListener("message", onMessage);
      this.worker.postMessage(message);
    });
  }
}

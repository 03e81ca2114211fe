import { Database } from "bun:sqlite";
import { scrub } from "./scrub.ts";

/**
 * Runs in a worker thread with its own connection: copies the WAL back into the database file on a
 * timer, so that the fsync this needs happens off the server's event loop instead of inside whichever
 * write request crossed SQLite's automatic checkpoint threshold.
 */
declare const self: Worker;

interface Start {
  type: "start";
  path: string;
  intervalMs: number;
}

let timer: ReturnType<typeof setInterval> | undefined;
let db: Database | undefined;

/** A scrub waits this long after the deletion that asked for it, so a burst of deletions (a project's sessions) shares one. */
const SCRUB_DELAY_MS = 50;
/** A scrub that found the WAL busy is tried this many more times, this far apart. */
const SCRUB_ATTEMPTS = 20;
const SCRUB_RETRY_MS = 250;
let scrubTimer: ReturnType<typeof setTimeout> | undefined;

/** After deletions: free pages given back, the WAL copied and emptied; tried again while readers keep it busy. */
function scheduleScrub(attempt = 0, delayMs = SCRUB_DELAY_MS): void {
  if (scrubTimer) return;
  scrubTimer = setTimeout(() => {
    scrubTimer = undefined;
    let done = false;
    try {
      done = db !== undefined && scrub(db);
    } catch {
      // locked past the timeout: tried again below
    }
    if (!done && attempt < SCRUB_ATTEMPTS) scheduleScrub(attempt + 1, SCRUB_RETRY_MS);
  }, delayMs);
}

self.onmessage = (event: MessageEvent<Start | { type: "stop" } | { type: "scrub" }>) => {
  if (event.data.type === "scrub") scheduleScrub();
  else if (event.data.type === "start") {
    db = new Database(event.data.path);
    db.exec("PRAGMA busy_timeout = 1000");
    const connection = db;
    // PASSIVE never waits for readers or writers; what it cannot copy now, it copies next time.
    timer = setInterval(() => connection.exec("PRAGMA wal_checkpoint(PASSIVE)"), event.data.intervalMs);
    postMessage("started");
  } else {
    clearInterval(timer);
    clearTimeout(scrubTimer);
    db?.close();
    postMessage("stopped");
    process.exit(0);
  }
};

import { Database } from "bun:sqlite";

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

self.onmessage = (event: MessageEvent<Start | { type: "stop" }>) => {
  if (event.data.type === "start") {
    db = new Database(event.data.path);
    db.exec("PRAGMA busy_timeout = 1000");
    const connection = db;
    // PASSIVE never waits for readers or writers; what it cannot copy now, it copies next time.
    timer = setInterval(() => connection.exec("PRAGMA wal_checkpoint(PASSIVE)"), event.data.intervalMs);
  } else {
    clearInterval(timer);
    db?.close();
    postMessage("stopped");
    process.exit(0);
  }
};

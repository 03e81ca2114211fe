/**
 * The baselines for the throughput ratio: Bun.serve with no framework, no auth and no database. With
 * `health` it answers with a document shaped and sized like Atrium's health report, built per request
 * as Atrium builds it, so the ratio measures the server's own cost rather than the size of the answer;
 * with `small` it answers `{"status":"ok"}`. It prints the same "listening on" line as Atrium.
 */
const body = process.argv[2] === "health" ? "health" : "small";
const startedAt = new Date().toISOString();
const startedMs = Date.now();

function healthDocument() {
  return {
    status: "ok",
    release: { version: "0.1.0", buildNumber: 0, channel: "stable" },
    database: { state: "ok", schemaVersion: 2, journalMode: "wal" },
    process: { pid: process.pid, startedAt, uptimeSeconds: (Date.now() - startedMs) / 1000 },
    migration: { state: "idle", schemaVersion: 2, targetVersion: 2 },
  };
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: body === "health" ? () => Response.json(healthDocument()) : () => Response.json({ status: "ok" }),
});
console.log(`listening on http://127.0.0.1:${server.port}`);

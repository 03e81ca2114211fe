const startedAt = new Date().toISOString();
const startedMs = Date.now();

/**
 * A document shaped and sized like Atrium's health report, built per request as Atrium builds it, so
 * that the baselines serialize what Atrium serializes.
 */
export function healthDocument() {
  return {
    status: "ok",
    release: { version: "0.1.0", buildNumber: 0, channel: "stable" },
    database: { state: "ok", schemaVersion: 2, journalMode: "wal" },
    process: { pid: process.pid, startedAt, uptimeSeconds: (Date.now() - startedMs) / 1000 },
    migration: { state: "idle", schemaVersion: 2, targetVersion: 2 },
  };
}

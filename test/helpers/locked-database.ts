import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "./poll.ts";

/** Another process's connection holding the write lock, as `sqlite3` or a backup tool would; returns the unlock. */
export function lockDatabase(path: string): () => void {
  const other = new Database(path);
  other.exec("BEGIN IMMEDIATE");
  return () => {
    other.exec("ROLLBACK");
    other.close();
  };
}

/** Waits until the server's log has `text`: what it did while its database could not say so. */
export const logSays = (dataDir: string, text: string) =>
  until(
    async () => readFileSync(join(dataDir, "logs", "atrium.log"), "utf8"),
    (log) => log.includes(text),
    10_000,
  );

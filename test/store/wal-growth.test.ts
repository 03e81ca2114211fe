import { expect, test } from "bun:test";
import { join } from "node:path";
import { statSync } from "node:fs";
import { openTestStore } from "../helpers/test-store.ts";

// Statements left open (RETURNING read with .get()) stop SQLite's automatic checkpoints and the WAL
// grows without bound; this keeps that from coming back.
test("the WAL stays bounded under many writes", () => {
  const { store, log, dir, close } = openTestStore();
  const payload = { namespace: "n", keys: ["x".repeat(200)] };
  for (let i = 0; i < 20_000; i++) {
    store.transaction(() => log.append("sync.changed", `sync:${i % 50}`, payload));
  }
  const walBytes = statSync(join(dir, "atrium.db-wal")).size;
  // The default checkpoint threshold is 1,000 pages (4 MiB); allow slack, far below unbounded (~10 MB here).
  expect(walBytes).toBeLessThan(8 * 1024 * 1024);
  expect(log.cursor()).toBe(20_000);
  close();
}, 60_000);

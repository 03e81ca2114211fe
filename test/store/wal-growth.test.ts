import { afterEach, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { join } from "node:path";
import { readFileSync, statSync } from "node:fs";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";
import type { CheckpointTuning } from "../../src/store/wal-checkpointer.ts";

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.store.stopBackgroundCheckpoints();
  opened?.close();
  opened = undefined;
});

function open(): TestStore {
  opened = openTestStore();
  return opened;
}

const MiB = 1024 * 1024;
/**
 * The background checkpoints made small: the worker copies every 100 ms, the backstop is SQLite's own
 * 1,000 pages (4 MiB), and past 2 MiB the writer copies the WAL itself. The server's are 2 s, 4,000
 * pages and 20 MiB; what bounds the WAL is the same.
 */
const SMALL: CheckpointTuning = { intervalMs: 100, backstopPages: 1000, walLimitBytes: 2 * MiB };

// Statements left open (RETURNING read with .get()) stop SQLite's automatic checkpoints and the WAL
// grows without bound; this keeps that from coming back, with checkpoints inline and in the background.
for (const mode of ["inline", "background"] as const) {
  test(`the WAL stays bounded under many writes (${mode} checkpoints)`, () => {
    const { store, log, dir } = open();
    if (mode === "background") store.startBackgroundCheckpoints((error) => console.error(error), SMALL);
    const payload = { namespace: "n", keys: ["x".repeat(200)] };
    for (let i = 0; i < 2_500; i++) {
      store.transaction(() => log.append("sync.changed", `sync:${i % 50}`, payload));
    }
    const walBytes = statSync(join(dir, "atrium.db-wal")).size;
    // Both stay near 4 MiB (SQLite's 1,000-page threshold, the writer's limit); unbounded, these writes grow it past 30 MiB.
    expect(walBytes).toBeLessThan(8 * MiB);
    expect(log.cursor()).toBe(2_500);
  });
}

test("background checkpoints copy the WAL into the database file without waiting for a threshold", async () => {
  const { store, log, dir } = open();
  store.startBackgroundCheckpoints((error) => console.error(error), SMALL);
  const marker = `marker-${crypto.randomUUID()}`;
  // Five small writes are far below the 1,000-page backstop, so only the worker can have copied them.
  for (let i = 0; i < 5; i++) store.transaction(() => log.append("sync.changed", "sync:n", { namespace: "n", keys: [marker] }));
  const inDatabaseFile = () => readFileSync(join(dir, "atrium.db")).includes(marker);
  await until(
    async () => inDatabaseFile(),
    (copied) => copied,
    6000,
  );
});

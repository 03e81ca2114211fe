import { afterEach, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { join } from "node:path";
import { readFileSync, statSync } from "node:fs";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";

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

// Statements left open (RETURNING read with .get()) stop SQLite's automatic checkpoints and the WAL
// grows without bound; this keeps that from coming back, with checkpoints inline and in the background.
for (const mode of ["inline", "background"] as const) {
  test(`the WAL stays bounded under many writes (${mode} checkpoints)`, async () => {
    const { store, log, dir } = open();
    if (mode === "background") store.startBackgroundCheckpoints((error) => console.error(error));
    const payload = { namespace: "n", keys: ["x".repeat(200)] };
    for (let i = 0; i < 20_000; i++) {
      store.transaction(() => log.append("sync.changed", `sync:${i % 50}`, payload));
    }
    const walBytes = statSync(join(dir, "atrium.db-wal")).size;
    // Inline: SQLite's 1,000-page threshold; background: the writer's own 20 MiB limit. Unbounded is ~100 MB here.
    expect(walBytes).toBeLessThan(24 * 1024 * 1024);
    expect(log.cursor()).toBe(20_000);
  }, 60_000);
}

test("background checkpoints copy the WAL into the database file without waiting for a threshold", async () => {
  const { store, log, dir } = open();
  store.startBackgroundCheckpoints((error) => console.error(error));
  const marker = `marker-${crypto.randomUUID()}`;
  // A handful of writes: far below any automatic threshold, so only the worker can copy them.
  for (let i = 0; i < 5; i++) store.transaction(() => log.append("sync.changed", "sync:n", { namespace: "n", keys: [marker] }));
  // Five small writes are far below the 4,000-page backstop, so only the worker can have copied them.
  const inDatabaseFile = () => readFileSync(join(dir, "atrium.db")).includes(marker);
  await until(
    async () => inDatabaseFile(),
    (copied) => copied,
    6000,
  );
});

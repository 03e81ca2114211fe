import { expect, test } from "bun:test";
import { join } from "node:path";
import { statSync } from "node:fs";
import { Store } from "../../src/store/database.ts";
import { migrate } from "../../src/store/migrations.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { EventLog } from "../../src/events/event-log.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// Statements left open (RETURNING read with .get()) stop SQLite's automatic checkpoints and the WAL
// grows without bound; this keeps that from coming back.
test("the WAL stays bounded under many writes", () => {
  const dir = makeTempDir();
  const store = Store.open(join(dir.path, "atrium.db"));
  migrate(store);
  const log = new EventLog(store, new EventRepository(store), "srv_test");
  const payload = { namespace: "n", keys: ["x".repeat(200)] };
  for (let i = 0; i < 20_000; i++) {
    store.transaction(() => log.append("sync.changed", `sync:${i % 50}`, payload));
  }
  const walBytes = statSync(join(dir.path, "atrium.db-wal")).size;
  // The default checkpoint threshold is 1,000 pages (4 MiB); allow slack, far below unbounded (~10 MB here).
  expect(walBytes).toBeLessThan(8 * 1024 * 1024);
  expect(log.cursor()).toBe(20_000);
  store.close();
  dir.remove();
}, 60_000);

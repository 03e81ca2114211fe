import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { migrate } from "../../src/store/migrations.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { EventLog } from "../../src/events/event-log.ts";
import { makeTempDir } from "./temp-dir.ts";
import { MODULES } from "../../src/modules/modules.ts";

export interface TestStore {
  store: Store;
  log: EventLog;
  dir: string;
  close(): void;
}

/** A real, migrated SQLite file in a temp dir, with an event log over it that takes every module's events. */
export function openTestStore(options: { busyTimeoutMs?: number } = {}): TestStore {
  const dir = makeTempDir();
  const store = Store.open(join(dir.path, "atrium.db"), options);
  migrate(store);
  const log = new EventLog(store, new EventRepository(store), "srv_test");
  for (const module of MODULES) log.accept(module.eventKinds);
  return {
    store,
    log,
    dir: dir.path,
    close() {
      store.close();
      dir.remove();
    },
  };
}

/** Reads a server's database the way another process would (read-only), for what its interface never serves. */
export function readServerDatabase<T>(dataDir: string, read: (db: Database) => T): T {
  const db = new Database(join(dataDir, "atrium.db"), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every table, index and trigger as SQLite stores it, and the migrations the database records. */
export function schemaOf(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return {
      objects: db.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all(),
      migrations: db.query("SELECT version, name FROM schema_migrations ORDER BY version").all(),
    };
  } finally {
    db.close();
  }
}

import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { migrate } from "../../src/store/migrations.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { EventLog } from "../../src/events/event-log.ts";
import { makeTempDir } from "./temp-dir.ts";

export interface TestStore {
  store: Store;
  log: EventLog;
  dir: string;
  close(): void;
}

/** A real, migrated SQLite file in a temp dir, with an event log over it. */
export function openTestStore(): TestStore {
  const dir = makeTempDir();
  const store = Store.open(join(dir.path, "atrium.db"));
  migrate(store);
  return {
    store,
    log: new EventLog(store, new EventRepository(store), "srv_test"),
    dir: dir.path,
    close() {
      store.close();
      dir.remove();
    },
  };
}

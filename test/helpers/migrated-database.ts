import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { dataPaths } from "../../src/config/paths.ts";
import { Store } from "../../src/store/database.ts";
import { migrate } from "../../src/store/migrations.ts";
import { makeTempDir } from "./temp-dir.ts";

/** The bytes of a database with every migration applied and nothing else, made once per test process. */
let migrated: Buffer | undefined;

function migratedBytes(): Buffer {
  if (migrated) return migrated;
  const dir = makeTempDir("atrium-migrated-db-");
  try {
    const path = join(dir.path, "atrium.db");
    const store = Store.open(path);
    migrate(store);
    // Closing the last connection copies the WAL back into the file: the file is the whole database.
    store.close();
    migrated = readFileSync(path);
    return migrated;
  } finally {
    dir.remove();
  }
}

/**
 * Puts where a new server in `dataDir` opens its database one with every migration applied, and
 * nothing else: what a server's first start makes, made once per test process instead of once per
 * server (16 migrations cost about 20 ms of CPU each time). The migrations have tests of their own.
 */
export function seedMigratedDatabase(dataDir: string): void {
  const target = dataPaths(dataDir).database;
  if (existsSync(target)) return;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  writeFileSync(target, migratedBytes(), { mode: 0o600 });
}

import type { Store } from "./database.ts";

/** Small key/value facts about this installation (server identity). */
export class MetaRepository {
  constructor(private readonly store: Store) {}

  get(key: string): string | undefined {
    return this.store.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
  }

  set(key: string, value: string): void {
    this.store.db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
  }

  /** Stores `value` unless the key already has one; returns the value that is kept. */
  getOrInsert(key: string, value: string): string {
    this.store.db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING").run(key, value);
    return this.get(key) ?? value;
  }
}

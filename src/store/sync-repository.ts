import type { Store } from "./database.ts";

export interface StoredSyncEntry {
  key: string;
  /** JSON text of the value; null for a deleted entry. */
  value: string | null;
  wallMs: number;
  counter: number;
  deviceId: string;
  deleted: boolean;
}

interface SyncRow {
  key: string;
  value: string | null;
  wall_ms: number;
  counter: number;
  device_id: string;
  deleted: number;
}

const toEntry = (row: SyncRow): StoredSyncEntry => ({
  key: row.key,
  value: row.value,
  wallMs: row.wall_ms,
  counter: row.counter,
  deviceId: row.device_id,
  deleted: row.deleted === 1,
});

/** Synchronised key/value settings, one row per namespace and key (tombstones included). */
export class SyncRepository {
  constructor(private readonly store: Store) {}

  get(namespace: string, key: string): StoredSyncEntry | undefined {
    const row = this.store.db
      .query<SyncRow, [string, string]>("SELECT key, value, wall_ms, counter, device_id, deleted FROM sync_entries WHERE namespace = ? AND key = ?")
      .get(namespace, key);
    return row ? toEntry(row) : undefined;
  }

  list(namespace: string): StoredSyncEntry[] {
    return this.store.db
      .query<SyncRow, [string]>("SELECT key, value, wall_ms, counter, device_id, deleted FROM sync_entries WHERE namespace = ? ORDER BY key")
      .all(namespace)
      .map(toEntry);
  }

  upsert(namespace: string, entry: StoredSyncEntry): void {
    this.store.db
      .query(
        `INSERT INTO sync_entries (namespace, key, value, wall_ms, counter, device_id, deleted)
         VALUES ($namespace, $key, $value, $wallMs, $counter, $deviceId, $deleted)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, wall_ms = excluded.wall_ms,
           counter = excluded.counter, device_id = excluded.device_id, deleted = excluded.deleted`,
      )
      .run({ namespace, ...entry, deleted: entry.deleted ? 1 : 0 });
  }
}

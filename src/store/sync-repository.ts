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

/** An entry with where it lives and the event that last changed it, as replication reads it. */
export interface ChangedSyncEntry extends StoredSyncEntry {
  namespace: string;
  eventId: number;
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

const COLUMNS = "key, value, wall_ms, counter, device_id, deleted";

/** Synchronised key/value settings, one row per namespace and key (tombstones included). */
export class SyncRepository {
  constructor(private readonly store: Store) {}

  get(namespace: string, key: string): StoredSyncEntry | undefined {
    const row = this.store.db.query<SyncRow, [string, string]>(`SELECT ${COLUMNS} FROM sync_entries WHERE namespace = ? AND key = ?`).get(namespace, key);
    return row ? toEntry(row) : undefined;
  }

  list(namespace: string): StoredSyncEntry[] {
    return this.store.db.query<SyncRow, [string]>(`SELECT ${COLUMNS} FROM sync_entries WHERE namespace = ? ORDER BY key`).all(namespace).map(toEntry);
  }

  keys(namespace: string): string[] {
    return this.store.db
      .query<{ key: string }, [string]>("SELECT key FROM sync_entries WHERE namespace = ?")
      .all(namespace)
      .map((row) => row.key);
  }

  /**
   * The entries changed by the first `eventLimit` events after `afterEventId`, oldest first. Whole
   * events only: one event may have changed many keys, and a page must not end inside it.
   */
  changedAfter(afterEventId: number, eventLimit: number): ChangedSyncEntry[] {
    return this.store.db
      .query<SyncRow & { namespace: string; event_id: number }, [number, number]>(
        `SELECT namespace, event_id, ${COLUMNS} FROM sync_entries
         WHERE event_id > ?1 AND event_id IN (SELECT DISTINCT event_id FROM sync_entries WHERE event_id > ?1 ORDER BY event_id LIMIT ?2)
         ORDER BY event_id, namespace, key`,
      )
      .all(afterEventId, eventLimit)
      .map((row) => ({ ...toEntry(row), namespace: row.namespace, eventId: row.event_id }));
  }

  upsert(namespace: string, entry: StoredSyncEntry, eventId: number): void {
    this.store.db
      .query(
        `INSERT INTO sync_entries (namespace, key, value, wall_ms, counter, device_id, deleted, event_id)
         VALUES ($namespace, $key, $value, $wallMs, $counter, $deviceId, $deleted, $eventId)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, wall_ms = excluded.wall_ms,
           counter = excluded.counter, device_id = excluded.device_id, deleted = excluded.deleted, event_id = excluded.event_id`,
      )
      .run({ namespace, ...entry, deleted: entry.deleted ? 1 : 0, eventId });
  }
}

import type { Store } from "../store/database.ts";
import type { StoredSyncEntry, SyncRepository } from "../store/sync-repository.ts";
import type { SyncEvents } from "../schemas/sync.ts";
import type { EventLog } from "../events/event-log.ts";
import type { SyncNamespace, SyncPutBody, SyncTimestamp } from "../schemas/sync.ts";
import { InvalidInputError } from "../errors.ts";

/** Orders two timestamps: wall clock, then counter, then device id (a total order across devices). */
export function compareTimestamps(a: SyncTimestamp, b: SyncTimestamp): number {
  if (a.wallMs !== b.wallMs) return a.wallMs < b.wallMs ? -1 : 1;
  if (a.counter !== b.counter) return a.counter < b.counter ? -1 : 1;
  return a.deviceId < b.deviceId ? -1 : a.deviceId > b.deviceId ? 1 : 0;
}

const timestampOf = (entry: StoredSyncEntry): SyncTimestamp => ({
  wallMs: entry.wallMs,
  counter: entry.counter,
  deviceId: entry.deviceId,
});

/**
 * SQLite stores text as UTF-8, where every lone surrogate becomes U+FFFD: "\uD800" and "\uDC00" would
 * be one key, and a device id would no longer compare as it was sent.
 */
function refuseLoneSurrogates(entry: SyncPutBody["entries"][number], index: number): void {
  const texts: Array<[string, string]> = [
    [`entries[${index}].key`, entry.key],
    [`entries[${index}].timestamp.deviceId`, entry.timestamp.deviceId],
  ];
  for (const [field, text] of texts) {
    if (!text.isWellFormed()) throw new InvalidInputError(`body field "${field}" is invalid: it holds a lone UTF-16 surrogate, which is not text`);
  }
}

/**
 * Last-writer-wins key/value settings per namespace. An entry replaces the stored one only when its
 * timestamp is newer, so devices can resend freely; a null value is a deletion kept as a tombstone,
 * so that an older write arriving later cannot bring the key back.
 */
export class SyncService {
  constructor(
    private readonly store: Store,
    private readonly entries: SyncRepository,
    private readonly events: EventLog<typeof SyncEvents>,
  ) {}

  get(namespace: string): SyncNamespace {
    return {
      namespace,
      entries: this.entries.list(namespace).map((entry) => ({
        key: entry.key,
        value: entry.value === null ? null : JSON.parse(entry.value),
        timestamp: timestampOf(entry),
        deleted: entry.deleted,
      })),
    };
  }

  put(namespace: string, body: SyncPutBody): SyncNamespace {
    body.entries.forEach(refuseLoneSurrogates);
    return this.store.transaction(() => {
      const changed: string[] = [];
      for (const incoming of body.entries) {
        const stored = this.entries.get(namespace, incoming.key);
        if (stored && compareTimestamps(incoming.timestamp, timestampOf(stored)) <= 0) continue;
        const deleted = incoming.value === null || incoming.value === undefined;
        this.entries.upsert(namespace, {
          key: incoming.key,
          value: deleted ? null : JSON.stringify(incoming.value),
          ...incoming.timestamp,
          deleted,
        });
        if (!changed.includes(incoming.key)) changed.push(incoming.key);
      }
      if (changed.length > 0) this.events.append("sync.changed", `sync:${namespace}`, { namespace, keys: changed });
      return this.get(namespace);
    });
  }
}

import type { Clock } from "../clock.ts";
import type { Store } from "../store/database.ts";
import type { ChangedSyncEntry, StoredSyncEntry, SyncRepository } from "../store/sync-repository.ts";
import type { SyncEvents, SyncResponseEntry } from "../schemas/sync.ts";
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

const toResponseEntry = (entry: StoredSyncEntry): SyncResponseEntry => ({
  key: entry.key,
  value: entry.value === null ? null : JSON.parse(entry.value),
  timestamp: timestampOf(entry),
  deleted: entry.deleted,
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

/** Hears of an entry another machine changed, inside the transaction that stores it. */
export type SyncObserver = (entry: SyncResponseEntry) => void;

/** The entries changed after an event cursor, and the cursor to ask from next. */
export interface SyncChanges {
  entries: Array<SyncResponseEntry & { namespace: string }>;
  cursor: number;
  more: boolean;
}

export interface SyncServiceDeps {
  store: Store;
  entries: SyncRepository;
  events: EventLog<typeof SyncEvents>;
  clock: Clock;
  /** Stamps the entries Atrium writes itself. */
  deviceId: string;
}

/** Events a page of changes covers: each event is one put, of at most 1000 keys. */
const CHANGE_PAGE_EVENTS = 100;

/**
 * Last-writer-wins key/value settings per namespace. An entry replaces the stored one only when its
 * timestamp is newer, so devices (and paired machines) can resend freely; a null value is a deletion
 * kept as a tombstone, so that an older write arriving later cannot bring the key back. Every stored
 * entry remembers the event that changed it, which is the cursor other machines pull from.
 */
export class SyncService {
  private readonly observers = new Map<string, SyncObserver>();

  constructor(private readonly deps: SyncServiceDeps) {}

  get(namespace: string): SyncNamespace {
    return { namespace, entries: this.deps.entries.list(namespace).map(toResponseEntry) };
  }

  /** A namespace Atrium keeps for itself (the MCP registry) hears what other machines change in it. */
  observe(namespace: string, observer: SyncObserver): void {
    this.observers.set(namespace, observer);
  }

  put(namespace: string, body: SyncPutBody): SyncNamespace {
    return this.deps.store.transaction(() => {
      this.merge(namespace, body.entries);
      return this.get(namespace);
    });
  }

  /** Stores the entries newer than what is here (another machine's observer hears of them); answers the keys that changed. */
  merge(namespace: string, entries: SyncPutBody["entries"]): string[] {
    entries.forEach(refuseLoneSurrogates);
    return this.deps.store.transaction(() => {
      const winners = new Map<string, StoredSyncEntry>();
      for (const incoming of entries) {
        const stored = winners.get(incoming.key) ?? this.deps.entries.get(namespace, incoming.key);
        if (stored && compareTimestamps(incoming.timestamp, timestampOf(stored)) <= 0) continue;
        const deleted = incoming.value === null || incoming.value === undefined;
        winners.set(incoming.key, { key: incoming.key, value: deleted ? null : JSON.stringify(incoming.value), ...incoming.timestamp, deleted });
      }
      this.store(namespace, [...winners.values()]);
      const observer = this.observers.get(namespace);
      if (observer) for (const entry of winners.values()) observer(toResponseEntry(entry));
      return [...winners.keys()];
    });
  }

  /** The keys a namespace has entries for, deleted ones included. */
  keys(namespace: string): string[] {
    return this.deps.entries.keys(namespace);
  }

  /** These keys' entries as stored (a key with none is left out). */
  entries(namespace: string, keys: Iterable<string>): SyncResponseEntry[] {
    const found: SyncResponseEntry[] = [];
    for (const key of keys) {
      const stored = this.deps.entries.get(namespace, key);
      if (stored) found.push(toResponseEntry(stored));
    }
    return found;
  }

  /**
   * A value Atrium itself sets on this machine (null deletes), stamped newer than the stored entry
   * even when this clock is behind the machine that wrote that one. Joins the caller's transaction.
   */
  write(namespace: string, key: string, value: unknown): void {
    this.deps.store.transaction(() => {
      const stored = this.deps.entries.get(namespace, key);
      const wallMs = Math.max(this.deps.clock.now(), stored?.wallMs ?? 0);
      const counter = stored && stored.wallMs === wallMs ? stored.counter + 1 : 0;
      const deleted = value === null || value === undefined;
      this.store(namespace, [{ key, value: deleted ? null : JSON.stringify(value), wallMs, counter, deviceId: this.deps.deviceId, deleted }]);
    });
  }

  /** The entries of every namespace changed after the event `afterEventId`, a page at a time. */
  changesAfter(afterEventId: number): SyncChanges {
    const changed = this.deps.entries.changedAfter(afterEventId, CHANGE_PAGE_EVENTS);
    const lastEvent = changed.at(-1)?.eventId ?? afterEventId;
    const more = new Set(changed.map((entry) => entry.eventId)).size === CHANGE_PAGE_EVENTS;
    // With nothing more to read, the cursor moves to the log's end: the events after the last change
    // were not sync changes, and a peer comparing cursors must not pull for them again.
    return { entries: changed.map(toChange), cursor: more ? lastEvent : Math.max(lastEvent, this.deps.events.cursor()), more };
  }

  private store(namespace: string, entries: StoredSyncEntry[]): void {
    if (entries.length === 0) return;
    const event = this.deps.events.append("sync.changed", `sync:${namespace}`, { namespace, keys: entries.map((entry) => entry.key) });
    for (const entry of entries) this.deps.entries.upsert(namespace, entry, event.globalEventId);
  }
}

const toChange = (entry: ChangedSyncEntry) => ({ namespace: entry.namespace, ...toResponseEntry(entry) });

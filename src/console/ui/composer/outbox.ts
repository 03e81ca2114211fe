import { useEffect, useState } from "preact/hooks";
import { api, ApiError } from "../shared/api.ts";
import { onReachable } from "../shared/connection.ts";
import { type OutboxEntry, nextToSend, retryDelayMs } from "./outbox-order.ts";

/**
 * The offline outbox: every prompt the composer sends is kept in IndexedDB with its client id first, then
 * sent from there, oldest first, one at a time, so prompts sent while the server cannot be reached (no
 * network, the server down) reach it when it can be, in order, also after the page was closed and opened
 * again. A try whose outcome is unknown is made again with the same client id, which the server queues
 * once. A Web Lock keeps two tabs from sending at once. A prompt the server refuses stays, said, until
 * the user takes it back or cancels it.
 */
const DATABASE = "atrium-outbox";
const STORE = "prompts";

export type NewOutboxEntry = Omit<OutboxEntry, "seq" | "refused" | "sentAt">;

let opened: Promise<IDBDatabase> | undefined;
const database = () =>
  (opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  }));

/**
 * One request in a transaction of its own. Only the add is made `strict` (written to disk before it is
 * done): a prompt kept must survive a crash, while a delete lost in one only sends a prompt again with
 * its client id, which the server takes once.
 */
async function inStore<T>(
  mode: IDBTransactionMode,
  act: (store: IDBObjectStore) => IDBRequest<T>,
  durability: IDBTransactionDurability = "relaxed",
): Promise<T> {
  const transaction = (await database()).transaction(STORE, mode, { durability });
  const request = act(transaction.objectStore(STORE));
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error);
  });
}

const readAll = () => inStore("readonly", (store) => store.getAll() as IDBRequest<OutboxEntry[]>);

/** Entries on their first try from this page: not shown as waiting unless that try fails. */
const firstTries = new Set<string>();
const listeners = new Set<(entries: OutboxEntry[]) => void>();
const changed = async () => {
  const entries = await readAll();
  for (const listener of listeners) listener(entries);
};

/** Keeps the prompt on the device, then sends what waits; where the browser keeps nothing (IndexedDB refused), sends it straight away. */
export async function sendThroughOutbox(entry: NewOutboxEntry): Promise<void> {
  const kept = { ...entry, sentAt: new Date().toISOString(), refused: null };
  try {
    await inStore("readwrite", (store) => store.add(kept), "strict");
  } catch {
    await post(kept);
    return;
  }
  firstTries.add(entry.clientId);
  void changed();
  void drain();
}

/** Takes a waiting prompt out: it will not be sent (one already on its way may still arrive). */
export async function cancelWaiting(seq: number): Promise<void> {
  await inStore("readwrite", (store) => store.delete(seq));
  await changed();
}

const post = ({ sessionId, text, clientId, attachments, mentions }: NewOutboxEntry) =>
  api("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/prompts`, { text, clientId, attachments, ...(mentions.length ? { mentions } : {}) });

let draining = false;
let drainAgain = false;
let failures = 0;
let retry: ReturnType<typeof setTimeout> | undefined;

/** Whether a refusal is final: a server error, a busy one or a token to sign in again for is worth waiting out. */
const finalRefusal = (failure: unknown): failure is ApiError =>
  failure instanceof ApiError && failure.status < 500 && ![401, 408, 429].includes(failure.status);

/** Sends what waits, oldest first; stops at the first try that cannot reach the server and tries again later. */
async function drain(): Promise<void> {
  if (draining) {
    drainAgain = true;
    return;
  }
  draining = true;
  clearTimeout(retry);
  try {
    let emptied = true;
    do {
      drainAgain = false;
      const locks = navigator.locks;
      emptied = locks ? await locks.request(DATABASE, sendAll) : await sendAll();
    } while (drainAgain && emptied);
  } finally {
    draining = false;
  }
}

/** Whether it sent all that waits (false: it waits for the network). */
async function sendAll(): Promise<boolean> {
  for (let entry = nextToSend(await readAll()); entry; entry = nextToSend(await readAll())) {
    if (!navigator.onLine) return waitForNetwork();
    const { seq, clientId } = entry;
    try {
      await post(entry);
      await inStore("readwrite", (store) => store.delete(seq));
      failures = 0;
    } catch (failure) {
      if (!finalRefusal(failure)) {
        failures++;
        return waitForNetwork();
      }
      await inStore("readwrite", (store) => store.put({ ...entry, refused: failure.message }));
    } finally {
      firstTries.delete(clientId);
      await changed();
    }
  }
  return true;
}

/** Every prompt in the outbox now waits for the server, the ones just sent too: all are shown. */
function waitForNetwork(): false {
  firstTries.clear();
  void changed();
  retry = setTimeout(() => void drain(), retryDelayMs(failures));
  return false;
}

/** Sends what a closed page left, and again each time the network or the server comes back. */
let started = false;
export function startOutbox(): void {
  if (started || typeof indexedDB === "undefined") return;
  started = true;
  addEventListener("online", () => void drain());
  onReachable(() => void drain());
  void drain();
}

/** A session's prompts waiting in the outbox (those on a first try from this page aside), oldest first. */
export function useOutbox(sessionId: string): OutboxEntry[] {
  const [entries, setEntries] = useState<OutboxEntry[]>([]);
  useEffect(() => {
    const show = (all: OutboxEntry[]) =>
      setEntries(all.filter((entry) => entry.sessionId === sessionId && !firstTries.has(entry.clientId)).sort((a, b) => a.seq - b.seq));
    listeners.add(show);
    readAll().then(show, () => undefined);
    return () => {
      listeners.delete(show);
    };
  }, [sessionId]);
  return entries;
}

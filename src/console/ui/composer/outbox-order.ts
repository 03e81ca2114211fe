/** A prompt waiting on this device to be sent (the offline outbox, outbox.ts). */
export interface OutboxEntry {
  /** Its place in the outbox: IndexedDB's key, rising as prompts are sent. */
  seq: number;
  /** The prompt's client id: sent again after an unknown outcome, the server queues it once. */
  clientId: string;
  sessionId: string;
  text: string;
  attachments: Array<{ fileId: string }>;
  mentions: Array<{ path: string }>;
  /** When it was sent from the composer (ISO 8601). */
  sentAt: string;
  /** Why the server refused it (it will not be sent again); null while it waits. */
  refused: string | null;
}

/** The next prompt to send: the oldest one not refused, so they reach the server in the order they were sent. */
export function nextToSend(entries: readonly OutboxEntry[]): OutboxEntry | undefined {
  return [...entries].sort((a, b) => a.seq - b.seq).find((entry) => entry.refused === null);
}

/** The wait before the next try after `failures` tries in a row could not reach the server: 1 s, doubling, at most 30 s. */
export const retryDelayMs = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));

import type { Clock, ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import { HeartbeatAnswer, SyncChanges, SyncPushAnswer, type PeerAbout, type SyncPushBody } from "../schemas/machines.ts";
import type { Store } from "../store/database.ts";
import type { MachineRepository } from "../store/machine-repository.ts";
import type { SyncService } from "../sync/sync-service.ts";
import { callPeer, PeerCallError } from "./peer-client.ts";

export interface PeerTiming {
  /** Between health calls to a peer that answers. */
  heartbeatMs: number;
  /** The longest wait between calls to a peer that does not: the wait doubles up to this. */
  maxBackoffMs: number;
  /** How long one call to a peer may take. */
  requestTimeoutMs: number;
}

export interface PeerLinkDeps {
  store: Store;
  repository: MachineRepository;
  sync: SyncService;
  clock: Clock;
  logger: Logger;
  timing: PeerTiming;
  /** This machine, as it tells its peers. */
  self(): PeerAbout;
  /** This server's event cursor, which a peer compares with what it has pulled. */
  cursor(): number;
  /** The peer went on- or offline or has a new name: `machine.updated`. */
  changed(machineId: string): void;
}

/** last_seen_at is written at most this often while a peer stays online. */
const SEEN_WRITE_INTERVAL_MS = 60_000;
/** Entries in one push; a namespace's values may be large. */
const PUSH_BATCH = 500;

/**
 * Keeps this server in step with one paired machine: a health call on a timer (backing off while it
 * does not answer), a pull of its sync changes after the cursor pulled last whenever it reports a
 * newer one (so on every reconnect), and a push of this server's changes while it is online. Every
 * apply is last-writer-wins, so pushes, pulls and relays may overlap and arrive in any order.
 */
export class PeerLink {
  private online = false;
  private lastSeenMs: number;
  private seenWrittenMs = 0;
  private failures = 0;
  private timer: ClockTimer | undefined;
  private stopped = false;
  private pulling: Promise<void> | undefined;
  private pullAgain = false;
  private pushing: Promise<void> | undefined;
  private readonly pending = new Map<string, Set<string>>();
  /** Ends the calls in flight when the link stops, so a stop never waits for a peer's timeout. */
  private readonly calls = new AbortController();

  constructor(
    readonly machineId: string,
    private readonly deps: PeerLinkDeps,
  ) {
    const stored = deps.repository.get(machineId);
    this.lastSeenMs = Date.parse(stored?.lastSeenAt ?? stored?.addedAt ?? new Date(deps.clock.now()).toISOString());
  }

  get status(): { online: boolean; lastSeen: string } {
    return { online: this.online, lastSeen: new Date(this.lastSeenMs).toISOString() };
  }

  /** Calls the peer after `firstCallAfterMs`, then on the timer. */
  start(firstCallAfterMs: number): void {
    this.beatAfter(firstCallAfterMs);
  }

  /** Ends the timer and the calls in flight; nothing is changed after. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.clock.clearTimeout(this.timer);
    this.calls.abort();
    await Promise.allSettled([this.pulling, this.pushing]);
  }

  /** The peer called this server: it is up, so the backoff ends and what it reported is taken. */
  heard(about: PeerAbout, cursor: number): void {
    const wasOnline = this.online;
    this.contact(about, cursor);
    if (!wasOnline) {
      this.failures = 0;
      this.beatAfter(this.deps.timing.heartbeatMs);
    }
  }

  /** This server changed these keys: they go to the peer now if it is online, else with its next pull. */
  push(namespace: string, keys: string[]): void {
    if (this.stopped || !this.online) return;
    const pending = this.pending.get(namespace) ?? new Set<string>();
    for (const key of keys) pending.add(key);
    this.pending.set(namespace, pending);
    this.pushing ??= this.flush().finally(() => {
      this.pushing = undefined;
    });
  }

  /** Pulls what the peer changed since the last pull; one pull at a time, another after it when asked meanwhile. */
  pull(): Promise<void> {
    if (this.pulling) {
      this.pullAgain = true;
      return this.pulling;
    }
    this.pulling = (async () => {
      do {
        this.pullAgain = false;
        await this.pullPages();
      } while (this.pullAgain && !this.stopped);
    })()
      .catch((error) => this.callFailed("pull", error))
      .finally(() => {
        this.pulling = undefined;
      });
    return this.pulling;
  }

  private beatAfter(ms: number): void {
    this.deps.clock.clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => void this.beat(), ms);
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const peer = this.deps.repository.get(this.machineId);
    if (!peer || this.stopped) return;
    try {
      const answer = await callPeer(peer.url, {
        method: "POST",
        path: "/v1/machines/peer/heartbeat",
        token: peer.peerToken,
        body: { machine: this.deps.self(), cursor: this.deps.cursor() },
        answer: HeartbeatAnswer,
        timeoutMs: this.deps.timing.requestTimeoutMs,
        signal: this.calls.signal,
      });
      this.failures = 0;
      if (!this.stopped) this.contact(answer.machine, answer.cursor);
    } catch (error) {
      this.failures += 1;
      this.callFailed("health call", error);
    }
    const { heartbeatMs, maxBackoffMs } = this.deps.timing;
    this.beatAfter(this.online ? heartbeatMs : Math.min(maxBackoffMs, heartbeatMs * 2 ** this.failures));
  }

  private contact(about: PeerAbout, cursor: number): void {
    const now = this.deps.clock.now();
    const stored = this.deps.repository.get(this.machineId);
    if (!stored) return;
    const wasOnline = this.online;
    this.online = true;
    this.lastSeenMs = now;
    // The address stays the one this server was given: what a peer thinks it is reached at may be its loopback.
    const renamed = about.name !== stored.name || about.os !== stored.os;
    if (!wasOnline || renamed || now - this.seenWrittenMs >= SEEN_WRITE_INTERVAL_MS) {
      try {
        this.deps.store.transaction(() => {
          this.deps.repository.describe(this.machineId, { name: about.name, os: about.os, url: stored.url });
          this.deps.repository.markSeen(this.machineId, new Date(now).toISOString());
        });
        this.seenWrittenMs = now;
      } catch (error) {
        this.deps.logger.warn("could not note that a paired machine was seen", { machineId: this.machineId, error });
      }
    }
    if (!wasOnline || renamed) this.deps.changed(this.machineId);
    if (cursor > stored.pulledCursor) void this.pull();
  }

  private callFailed(what: string, error: unknown): void {
    if (this.stopped) return;
    // Only a peer that did not answer is offline; a write here that failed (a locked database) says nothing of it.
    const unreachable = error instanceof PeerCallError && error.unreachable;
    if (unreachable && this.online) {
      this.online = false;
      this.pending.clear();
      this.deps.changed(this.machineId);
    }
    this.deps.logger.warn(`a paired machine's ${what} failed`, { machineId: this.machineId, error: (error as Error).message });
  }

  private async pullPages(): Promise<void> {
    for (;;) {
      const peer = this.deps.repository.get(this.machineId);
      if (!peer || this.stopped) return;
      const page = await callPeer(peer.url, {
        method: "GET",
        path: `/v1/machines/peer/changes?after=${peer.pulledCursor}`,
        token: peer.peerToken,
        answer: SyncChanges,
        timeoutMs: this.deps.timing.requestTimeoutMs,
        signal: this.calls.signal,
      });
      if (this.stopped) return;
      this.deps.store.transaction(() => {
        for (const [namespace, entries] of Map.groupBy(page.entries, (entry) => entry.namespace)) this.deps.sync.merge(namespace, entries);
        this.deps.repository.advanceCursor(this.machineId, page.cursor);
      });
      if (!page.more) return;
    }
  }

  private async flush(): Promise<void> {
    while (this.pending.size > 0 && !this.stopped) {
      const entries: SyncPushBody["entries"] = [];
      for (const [namespace, keys] of this.pending) {
        for (const entry of this.deps.sync.entries(namespace, keys))
          entries.push({ namespace, key: entry.key, value: entry.value, timestamp: entry.timestamp });
      }
      this.pending.clear();
      const peer = this.deps.repository.get(this.machineId);
      if (!peer) return;
      try {
        for (let start = 0; start < entries.length; start += PUSH_BATCH) {
          await callPeer(peer.url, {
            method: "PUT",
            path: "/v1/machines/peer/changes",
            token: peer.peerToken,
            body: { entries: entries.slice(start, start + PUSH_BATCH) },
            answer: SyncPushAnswer,
            timeoutMs: this.deps.timing.requestTimeoutMs,
            signal: this.calls.signal,
          });
        }
      } catch (error) {
        // What did not arrive, the peer pulls: its cursor stays behind this server's until it does.
        this.callFailed("push", error);
        return;
      }
    }
  }
}

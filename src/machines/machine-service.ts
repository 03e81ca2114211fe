import type { Static, TSchema } from "@sinclair/typebox";
import { generateToken, machineOfTokenName, type AccessTokens } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import { ConflictError, ForbiddenError, InvalidInputError, NotAuthenticatedError, NotFoundError, TooManyRequestsError, UpstreamError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import {
  MachineList,
  PairAcceptAnswer,
  type HeartbeatAnswer,
  type HeartbeatBody,
  type Machine,
  type MachineEvents,
  type PairAcceptBody,
  type PairBody,
  type PairingCode,
  type PeerAbout,
  type SyncChanges,
  type SyncPushAnswer,
  type SyncPushBody,
} from "../schemas/machines.ts";
import type { Store } from "../store/database.ts";
import type { MachineRepository, StoredMachine } from "../store/machine-repository.ts";
import type { SyncService } from "../sync/sync-service.ts";
import { PairingCodes } from "./pairing-codes.ts";
import { callPeer, PeerCallError, type PeerCall } from "./peer-client.ts";
import { PeerLink, type PeerTiming } from "./peer-link.ts";

export interface MachineTiming extends PeerTiming {
  /** How long the other machine has to answer a pair request. */
  pairTimeoutMs: number;
}

export interface MachineServiceDeps {
  store: Store;
  repository: MachineRepository;
  tokens: AccessTokens;
  events: EventLog<typeof MachineEvents>;
  sync: SyncService;
  clock: Clock;
  logger: Logger;
  timing: MachineTiming;
  /** This machine, as its peers see it. */
  self: PeerAbout;
}

/** The base URL of another machine: http(s), no credentials, query or fragment; no trailing slash. */
export function peerUrl(text: string, field = `body field "url"`): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`${field} is invalid: ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidInputError(`${field} is invalid: it must be an http:// or https:// URL`);
  if (url.username || url.password || url.search || url.hash) {
    throw new InvalidInputError(`${field} is invalid: it must hold no user, password, query or fragment`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** What the machine asked to pair said, as this server's answer to its own client. */
function pairingRefusal(url: string, error: unknown): Error {
  if (!(error instanceof PeerCallError)) return error as Error;
  if (error.status === 401) return new NotAuthenticatedError(error.message);
  if (error.status === 429) return new TooManyRequestsError(error.message, 60);
  if (error.status === 409) return new ConflictError(error.message);
  return new UpstreamError(error.unreachable ? error.message : `${url} refused to pair: ${error.message}`);
}

/**
 * The machines of one account: Atrium servers that paired by a one-use code and hold a token of each
 * other's. Lists them with whether each answers, removes them (telling the other side), answers
 * their calls, and keeps one PeerLink per peer, which keeps the sync namespaces in step.
 */
export class MachineService {
  private readonly links = new Map<string, PeerLink>();
  private readonly codes: PairingCodes;

  constructor(private readonly deps: MachineServiceDeps) {
    this.codes = new PairingCodes(deps.repository, deps.clock);
  }

  /** Starts keeping every paired machine in step. */
  start(): void {
    for (const machine of this.deps.repository.list()) this.link(machine.machineId, 0);
  }

  async stop(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((link) => link.stop()));
  }

  list(): MachineList {
    const { id, name, os, url } = this.deps.self;
    const current: Machine = { id, name, os, online: true, lastSeen: new Date(this.deps.clock.now()).toISOString(), isCurrent: true, addedBy: "", url };
    return { machines: [current, ...this.deps.repository.list().map((machine) => this.view(machine))] };
  }

  /** The name of the (already verified) token a client called with: who made a code or a pairing. */
  tokenName(token: string | undefined): string {
    return (token === undefined ? null : this.deps.tokens.nameOf(token)) ?? "";
  }

  issueCode(createdBy: string): PairingCode {
    return this.codes.issue(createdBy);
  }

  /** Pairs with the machine at `url` that issued `code`: it answers with a token for this one, and gets one. */
  async pair(body: PairBody, addedBy: string): Promise<Machine> {
    const url = peerUrl(body.url);
    // Made before anything is stored: it travels to the other machine, and nothing is kept here unless it accepts.
    const token = generateToken();
    let answer: PairAcceptAnswer;
    try {
      answer = await callPeer(url, {
        method: "POST",
        path: "/v1/machines/pair/accept",
        body: { code: body.code, machine: this.deps.self, token } satisfies PairAcceptBody,
        answer: PairAcceptAnswer,
        timeoutMs: this.deps.timing.pairTimeoutMs,
      });
    } catch (error) {
      throw pairingRefusal(url, error);
    }
    const peer = answer.machine;
    try {
      this.deps.store.transaction(() => this.keep(peer, url, { mine: token, theirs: answer.token }, addedBy));
    } catch (error) {
      // The other machine keeps this one: tell it to forget, or it would list a machine that never knew it.
      void this.notifyUnpaired(url, answer.token);
      throw error;
    }
    this.link(peer.id, 0);
    return this.machine(peer.id);
  }

  /** Another machine pairs with this one: the code it brings is its only credential. */
  accept(body: PairAcceptBody): PairAcceptAnswer {
    if (body.machine.id === this.deps.self.id) {
      throw new ConflictError(`that is this machine (${body.machine.id}); a second server on one host needs its own machineId in config.json`);
    }
    const url = peerUrl(body.machine.url);
    const token = generateToken();
    this.deps.store.transaction(() => {
      const addedBy = this.codes.take(body.code);
      this.keep(body.machine, url, { mine: token, theirs: body.token }, addedBy);
    });
    // The other machine stores this one only once this answer reaches it; its own first call says it has.
    this.link(body.machine.id, this.deps.timing.heartbeatMs);
    return { machine: this.deps.self, token };
  }

  /** Removes another machine from the account here, and tells it so that it forgets this one too. */
  async remove(machineId: string): Promise<MachineList> {
    if (machineId === this.deps.self.id) throw new ConflictError("that is the current machine; remove it from another machine of the account");
    const peer = this.deps.repository.get(machineId);
    if (!peer) throw new NotFoundError(`no machine ${machineId} is paired with this one`);
    this.forgetHere(machineId);
    await this.notifyUnpaired(peer.url, peer.peerToken);
    return this.list();
  }

  /** A paired machine removed this one: it goes from this list too. */
  unpairedBy(machineId: string): MachineList {
    this.forgetHere(machineId);
    return this.list();
  }

  /** The paired machine a token belongs to; anyone else is refused the calls between machines. */
  machineOf(token: string | undefined): string {
    const name = token === undefined ? null : this.deps.tokens.nameOf(token);
    const machineId = name === null ? undefined : machineOfTokenName(name);
    if (machineId === undefined || !this.deps.repository.get(machineId)) {
      throw new ForbiddenError("only a paired machine makes this call, with the token this server minted for it");
    }
    return machineId;
  }

  /** A paired machine's name; 404 when no machine of that id is paired with this one. */
  peerName(machineId: string): string {
    return this.machine(machineId).name;
  }

  /** Calls a paired machine with the token it minted for this one. */
  callMachine<S extends TSchema>(machineId: string, call: Omit<PeerCall<S>, "token" | "timeoutMs"> & { timeoutMs?: number }): Promise<Static<S>> {
    const peer = this.deps.repository.get(machineId);
    if (!peer) throw new NotFoundError(`no machine ${machineId} is paired with this one`);
    return callPeer(peer.url, { timeoutMs: this.deps.timing.requestTimeoutMs, ...call, token: peer.peerToken });
  }

  heartbeat(callerId: string, body: HeartbeatBody): HeartbeatAnswer {
    if (body.machine.id !== callerId) throw new ForbiddenError(`this token is machine ${callerId}'s, not ${body.machine.id}'s`);
    this.links.get(callerId)?.heard(body.machine, body.cursor);
    return { machine: this.deps.self, cursor: this.deps.events.cursor() };
  }

  changes(after: number): SyncChanges {
    return this.deps.sync.changesAfter(after);
  }

  /** Entries a peer pushed; the newer ones are kept (and relayed to the other peers as this server's changes). */
  receive(body: SyncPushBody): SyncPushAnswer {
    return this.deps.store.transaction(() => {
      let changed = 0;
      for (const [namespace, entries] of Map.groupBy(body.entries, (entry) => entry.namespace)) changed += this.deps.sync.merge(namespace, entries).length;
      return { changed };
    });
  }

  /** This server changed sync entries: the peers that are online get them now. */
  changedHere(namespace: string, keys: string[]): void {
    for (const link of this.links.values()) link.push(namespace, keys);
  }

  private keep(peer: PeerAbout, url: string, tokens: { mine: string; theirs: string }, addedBy: string): void {
    const now = new Date(this.deps.clock.now()).toISOString();
    this.deps.tokens.storeForMachine(peer.id, tokens.mine);
    this.deps.repository.save({
      machineId: peer.id,
      name: peer.name,
      os: peer.os,
      url,
      peerToken: tokens.theirs,
      addedBy,
      addedAt: now,
      lastSeenAt: now,
      pulledCursor: -1,
    });
    this.publish(peer.id);
  }

  private forgetHere(machineId: string): void {
    const link = this.links.get(machineId);
    this.links.delete(machineId);
    void link?.stop();
    this.deps.store.transaction(() => {
      this.deps.tokens.revokeMachine(machineId);
      if (this.deps.repository.remove(machineId)) this.deps.events.append("machine.deleted", machineId, { id: machineId });
    });
  }

  /** Best effort: a machine that is off keeps listing this one until it is removed there too. */
  private async notifyUnpaired(url: string, token: string): Promise<void> {
    try {
      await callPeer(url, { method: "POST", path: "/v1/machines/peer/unpair", token, answer: MachineList, timeoutMs: this.deps.timing.requestTimeoutMs });
    } catch (error) {
      this.deps.logger.warn("could not tell a removed machine that it was removed", { url, error: (error as Error).message });
    }
  }

  /** A new link for a machine just (re)paired or found at start; one paired again replaces its old link. */
  private link(machineId: string, firstCallAfterMs: number): void {
    void this.links.get(machineId)?.stop();
    const { store, repository, sync, clock, logger, timing } = this.deps;
    const link = new PeerLink(machineId, {
      store,
      repository,
      sync,
      clock,
      logger,
      timing,
      self: () => this.deps.self,
      cursor: () => this.deps.events.cursor(),
      changed: (id) => this.statusChanged(id),
    });
    this.links.set(machineId, link);
    link.start(firstCallAfterMs);
  }

  private statusChanged(machineId: string): void {
    try {
      this.deps.store.transaction(() => this.publish(machineId));
    } catch (error) {
      this.deps.logger.warn("could not record that a paired machine changed", { machineId, error });
    }
  }

  private publish(machineId: string): void {
    if (this.deps.repository.get(machineId)) this.deps.events.append("machine.updated", machineId, this.machine(machineId));
  }

  private machine(machineId: string): Machine {
    const stored = this.deps.repository.get(machineId);
    if (!stored) throw new NotFoundError(`no machine ${machineId} is paired with this one`);
    return this.view(stored);
  }

  private view(stored: StoredMachine): Machine {
    const status = this.links.get(stored.machineId)?.status;
    return {
      id: stored.machineId,
      name: stored.name,
      os: stored.os,
      online: status?.online ?? false,
      lastSeen: status?.lastSeen ?? stored.lastSeenAt ?? stored.addedAt,
      isCurrent: false,
      addedBy: stored.addedBy,
      url: stored.url,
    };
  }
}

import type { Clock, ClockTimer } from "../clock.ts";
import { AnswerTimeoutError, ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logging/logger.ts";
import type { ClientAction, ClientEvents, ClientSummary, ClientWindowState, PutWindowStateBody } from "../schemas/clients.ts";
import type { ClientRepository, StoredClient } from "../store/client-repository.ts";
import type { Store } from "../store/database.ts";

export interface ClientServiceDeps {
  store: Store;
  repository: ClientRepository;
  events: EventLog<typeof ClientEvents>;
  clock: Clock;
  logger: Logger;
  /** Whether the client holds an event stream open. */
  isConnected(clientId: string): boolean;
  /** How long an action waits for the client's answer. */
  answerTimeoutMs: number;
}

/** What a client can be asked to do, as its request says. */
export type ClientRequest =
  | { kind: "window"; action: "focus" | "minimize" | "restore" }
  | { kind: "navigate"; page: string; settingsSection?: string }
  | { kind: "layout"; action: string; sessionId?: string; workspaceId?: string; paneId?: string };

interface Pending {
  clientId: string;
  resolve(state: ClientWindowState): void;
  reject(error: Error): void;
  timer: ClockTimer;
}

/**
 * Client windows: each client reports its whole layout (kept, so it can be read after the client went
 * away) and holds an event stream open while connected. Another client asks it to act: the action
 * goes to that client's stream alone, and the request waits for the state that answers it.
 */
export class ClientService {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly deps: ClientServiceDeps) {}

  list(): ClientSummary[] {
    return this.deps.repository.list().map((client) => this.view(client));
  }

  get(clientId: string): ClientSummary {
    return this.view(this.stored(clientId));
  }

  /** Stores the client's state; one carrying `ackActionId` answers that action. */
  putState(clientId: string, body: PutWindowStateBody): ClientWindowState {
    const { ackActionId, ...state } = body;
    const now = this.timestamp();
    const client: StoredClient = { clientId, state, lastSeenAt: now, updatedAt: now };
    this.deps.store.transaction(() => {
      this.deps.repository.save(client);
      this.publish(client);
    });
    if (ackActionId !== undefined) {
      const waiting = this.pending.get(ackActionId);
      if (waiting?.clientId === clientId) this.settle(ackActionId)?.resolve(state);
    }
    return state;
  }

  /**
   * Sends an action to the client and answers with the state it reports in return. 404 for a client
   * never seen, 409 when it is not connected (or goes away meanwhile), 400 for what it cannot do, 504
   * when no answer comes in time.
   */
  async act(clientId: string, request: ClientRequest): Promise<ClientWindowState> {
    const client = this.stored(clientId);
    if (!this.deps.isConnected(clientId)) {
      throw new ConflictError(`client ${clientId} is not connected (it holds no event stream open); it was last seen ${client.lastSeenAt}`);
    }
    checkCapability(client.state.capabilities, request);
    const actionId = newId("act");
    const action: ClientAction = {
      clientId,
      actionId,
      kind: request.kind,
      action: request.kind === "navigate" ? null : request.action,
      page: request.kind === "navigate" ? request.page : null,
      settingsSection: request.kind === "navigate" ? (request.settingsSection ?? null) : null,
      sessionId: request.kind === "layout" ? (request.sessionId ?? null) : null,
      workspaceId: request.kind === "layout" ? (request.workspaceId ?? null) : null,
      paneId: request.kind === "layout" ? (request.paneId ?? null) : null,
    };
    const answered = new Promise<ClientWindowState>((resolve, reject) => {
      const timer = this.deps.clock.setTimeout(() => {
        this.settle(actionId)?.reject(new AnswerTimeoutError(`client ${clientId} did not answer within ${this.deps.answerTimeoutMs / 1000} s`));
      }, this.deps.answerTimeoutMs);
      this.pending.set(actionId, { clientId, resolve, reject, timer });
    });
    try {
      this.deps.store.transaction(() => this.deps.events.append("client.action", clientId, action));
    } catch (error) {
      this.settle(actionId);
      throw error;
    }
    return answered;
  }

  /** A client's stream opened or its last one closed: its `connected` changes, and actions waiting on it fail. */
  presenceChanged(clientId: string, connected: boolean): void {
    if (!connected) {
      for (const [actionId, waiting] of this.pending) {
        if (waiting.clientId === clientId) this.settle(actionId)?.reject(new ConflictError(`client ${clientId} went away before it answered`));
      }
    }
    const client = this.deps.repository.get(clientId);
    if (!client) return;
    try {
      this.deps.store.transaction(() => {
        const lastSeenAt = this.timestamp();
        this.deps.repository.seen(clientId, lastSeenAt);
        this.publish({ ...client, lastSeenAt });
      });
    } catch (error) {
      this.deps.logger.warn("could not record a client's presence", { clientId, connected, error: (error as Error).message });
    }
  }

  /** Fails every action still waiting (the server stops). */
  close(): void {
    for (const actionId of [...this.pending.keys()]) this.settle(actionId)?.reject(new ConflictError("the server is stopping"));
  }

  private settle(actionId: string): Pending | undefined {
    const waiting = this.pending.get(actionId);
    if (!waiting) return undefined;
    this.pending.delete(actionId);
    this.deps.clock.clearTimeout(waiting.timer);
    return waiting;
  }

  private publish(client: StoredClient): void {
    this.deps.events.append("client.updated", client.clientId, { client: this.view(client) });
  }

  private stored(clientId: string): StoredClient {
    const client = this.deps.repository.get(clientId);
    if (!client) throw new NotFoundError(`no client ${clientId} has reported its windows`);
    return client;
  }

  private view(client: StoredClient): ClientSummary {
    return {
      clientId: client.clientId,
      connected: this.deps.isConnected(client.clientId),
      lastSeenAt: client.lastSeenAt,
      updatedAt: client.updatedAt,
      state: client.state,
    };
  }

  private timestamp(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** 400 for an action the client did not say it can do. */
function checkCapability(capabilities: ClientWindowState["capabilities"], request: ClientRequest): void {
  const refuse = (what: string, list: string[]) =>
    new InvalidInputError(`the client cannot ${what} (its capabilities offer ${list.length > 0 ? list.join(", ") : "none"})`);
  if (request.kind === "window" && !capabilities.windowActions.includes(request.action)) throw refuse(request.action, capabilities.windowActions);
  if (request.kind === "navigate") {
    if (!capabilities.pages.includes(request.page)) throw refuse(`show page ${request.page}`, capabilities.pages);
    if (request.settingsSection !== undefined && !capabilities.settingsSections.includes(request.settingsSection)) {
      throw refuse(`show settings section ${request.settingsSection}`, capabilities.settingsSections);
    }
  }
  if (request.kind === "layout" && !capabilities.layoutActions.includes(request.action))
    throw refuse(`do layout action ${request.action}`, capabilities.layoutActions);
}

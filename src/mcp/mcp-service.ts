import { createHash } from "node:crypto";
import type { Clock } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logging/logger.ts";
import type { CreateMcpServerBody, McpAuthorization, McpEvents, McpMachineState, McpServer, McpServerKind, UpdateMcpServerBody } from "../schemas/mcps.ts";
import type { Store } from "../store/database.ts";
import type { McpRepository, StoredMcpProbe, StoredMcpServer } from "../store/mcp-repository.ts";
import type { HarnessMcpConfigs, HarnessMcpServer } from "./harness-mcp-configs.ts";
import type { McpOAuth } from "./mcp-oauth.ts";
import type { McpEndpoint } from "./mcp-probe.ts";
import { NOT_PROBED, type McpProber } from "./mcp-prober.ts";
import type { McpReplica, ReplicatedMcpServer } from "./mcp-replica.ts";
import { mergeSecrets, validateMcpServer, type OwnCredentials } from "./mcp-validation.ts";

export interface McpServiceDeps {
  store: Store;
  repository: McpRepository;
  events: EventLog<typeof McpEvents>;
  clock: Clock;
  /** This machine: a server can be off here although on for the account. */
  machineId: string;
  harnessConfigs: HarnessMcpConfigs;
  oauth: McpOAuth;
  own: OwnCredentials;
  logger: Logger;
  /** Carries the servers made here to paired machines, and theirs here. */
  replica: McpReplica;
  prober: McpProber;
}

/** Header or environment values by name, in their order. */
type Secrets = Array<[string, string]>;

/** A server with what reaching it takes: for probes and for sessions. */
export interface ReachableMcpServer {
  id: string;
  endpoint: McpEndpoint;
  /** An OAuth server with no usable token: it cannot be reached until someone signs in. */
  needsSignIn: boolean;
}

/**
 * The MCP registry: servers made here (kept with their secrets, given to sessions), the servers each
 * harness lists in its own config (read-only), each server's state on this machine, and sign-ins.
 */
export class McpService {
  constructor(private readonly deps: McpServiceDeps) {
    deps.replica.follow((id, server) => this.applyReplicated(id, server));
  }

  list(): McpServer[] {
    const names = this.deps.repository.secretNames();
    const probes = this.deps.repository.probes();
    const disabled = this.deps.repository.disabledOn(this.deps.machineId);
    const managed = this.deps.repository.list().map((server) => this.managedView(server, names.get(server.id), probes.get(server.id), disabled.has(server.id)));
    const harnesses = this.deps.harnessConfigs.servers().map((server) => harnessView(server, probes.get(harnessServerId(server))));
    return [...managed, ...harnesses];
  }

  get(id: string): McpServer {
    const stored = this.deps.repository.get(id);
    if (stored) {
      const names = this.deps.repository.secretNames(id).get(id);
      return this.managedView(stored, names, this.deps.repository.probe(id), this.deps.repository.isDisabledOn(id, this.deps.machineId));
    }
    const harness = this.harnessServer(id);
    if (harness) return harnessView(harness, this.deps.repository.probe(id));
    throw new NotFoundError(`no MCP server ${id}`);
  }

  create(body: CreateMcpServerBody): McpServer {
    const now = this.timestamp();
    const server: StoredMcpServer = {
      id: newId("mcp"),
      name: body.name,
      transport: body.transport,
      command: body.command ?? "",
      args: body.args ?? [],
      url: body.url ?? "",
      authType: body.authType ?? "none",
      oauthScope: body.oauthScope ?? "",
      enabled: body.enabled ?? true,
      createdAt: now,
      updatedAt: now,
    };
    const env = Object.entries(body.environment ?? {});
    const headers = Object.entries(body.headers ?? {});
    validateMcpServer({ ...server, env, headers }, this.deps.own);
    this.write(undefined, server, env, headers);
    this.reprobe(server.id);
    return this.get(server.id);
  }

  update(id: string, body: UpdateMcpServerBody): McpServer {
    const stored = this.managed(id);
    const merged: StoredMcpServer = {
      ...stored,
      ...definedFields(body, ["name", "transport", "command", "args", "url", "authType", "oauthScope", "enabled"]),
      updatedAt: this.timestamp(),
    };
    // Between a command and a URL, the old side's fields and values go unless given again.
    const crossing = (merged.transport === "stdio") !== (stored.transport === "stdio");
    if (crossing && merged.transport === "stdio") merged.url = body.url ?? "";
    if (crossing && merged.transport !== "stdio") Object.assign(merged, { command: body.command ?? "", args: body.args ?? [] });
    const keptEnv = crossing && merged.transport !== "stdio" ? [] : this.deps.repository.secrets(id, "env");
    const keptHeaders = crossing && merged.transport === "stdio" ? [] : this.deps.repository.secrets(id, "header");
    const env = mergeSecrets("environment", keptEnv, body.environment);
    const headers = mergeSecrets("headers", keptHeaders, body.headers);
    validateMcpServer({ ...merged, env, headers }, this.deps.own);
    this.write(stored, merged, env, headers);
    this.reprobe(id);
    return this.get(id);
  }

  /**
   * Stores a server changed here and mirrors it for paired machines, in one transaction; a name
   * another server has is a 409.
   */
  private write(before: StoredMcpServer | undefined, server: StoredMcpServer, env: Secrets, headers: Secrets): void {
    this.deps.store.transaction(() => {
      const holder = this.deps.repository.idOfName(server.name);
      if (holder && holder !== server.id) throw new ConflictError(`an MCP server named ${server.name} exists`);
      this.save(before, server, env, headers);
      this.deps.replica.written(server, env, headers);
    });
  }

  /** Stores a server with its values and publishes it; a new URL or auth type voids its sign-in. */
  private save(before: StoredMcpServer | undefined, server: StoredMcpServer, env: Secrets, headers: Secrets): void {
    if (before && (before.url !== server.url || before.authType !== server.authType)) this.deps.oauth.forget(server.id);
    this.deps.repository.save(server);
    this.deps.repository.replaceSecrets(server.id, "env", env);
    this.deps.repository.replaceSecrets(server.id, "header", headers);
    this.publish(server.id);
  }

  /** Removes a server with its values and sign-in; its probe is forgotten once that has committed. */
  private drop(id: string): void {
    this.deps.repository.remove(id);
    this.deps.oauth.forget(id);
    this.deps.events.append("mcp.deleted", id, { id });
    this.deps.store.onCommit(() => this.deps.prober.forget(id));
  }

  /**
   * Takes a change another machine made, inside the transaction that stores it. A server that would
   * be refused here is left out and logged, never thrown: one bad entry must not stop the rest of a
   * pull. A name a different server holds here gets the id's end added, so both stay usable.
   */
  private applyReplicated(id: string, replicated: ReplicatedMcpServer | null): void {
    const stored = this.deps.repository.get(id);
    if (replicated === null) {
      if (stored) this.drop(id);
      return;
    }
    const { env, headers, ...definition } = replicated;
    const holder = this.deps.repository.idOfName(definition.name);
    const server: StoredMcpServer = { ...definition, id, name: holder && holder !== id ? `${definition.name}-${id.slice(-6)}` : definition.name };
    try {
      validateMcpServer({ ...server, env, headers }, this.deps.own);
    } catch (error) {
      this.deps.logger.warn("an MCP server from a paired machine is not taken here", { id, error: (error as Error).message });
      return;
    }
    this.save(stored, server, env, headers);
    this.deps.store.onCommit(() => this.reprobe(id));
  }

  /** Gives the servers made before this machine was paired their replica entry. */
  mirrorUnmirrored(): void {
    const mirrored = this.deps.replica.mirrored();
    for (const server of this.deps.repository.list()) {
      if (mirrored.has(server.id)) continue;
      this.deps.store.transaction(() =>
        this.deps.replica.written(server, this.deps.repository.secrets(server.id, "env"), this.deps.repository.secrets(server.id, "header")),
      );
    }
  }

  /** Removes a server made here; the harnesses' own are changed in their config. Returns what remains. */
  remove(id: string): McpServer[] {
    this.managed(id);
    this.deps.store.transaction(() => {
      this.drop(id);
      this.deps.replica.removed(id);
    });
    return this.list();
  }

  machineState(id: string): McpMachineState {
    const server = this.get(id);
    return { machineId: this.deps.machineId, server, disabledHere: server.disabledHere, enabled: server.enabled && !server.disabledHere };
  }

  setDisabledHere(id: string, disabledHere: boolean): McpMachineState {
    this.managed(id);
    this.deps.store.transaction(() => {
      this.deps.repository.setDisabledHere(id, this.deps.machineId, disabledHere, this.timestamp());
      this.publish(id);
    });
    this.reprobe(id);
    return this.machineState(id);
  }

  /** Probes one server now (a harness's own too) and answers with what it found. */
  async probe(id: string): Promise<McpServer> {
    this.get(id);
    await this.deps.prober.probe(id);
    return this.get(id);
  }

  /** Probes every server made here that is on on this machine (the server's start). */
  probeAll(): void {
    const disabled = this.deps.repository.disabledOn(this.deps.machineId);
    for (const server of this.deps.repository.list()) this.probeAsStored(server, disabled.has(server.id));
  }

  async authorize(id: string, redirectUri: string): Promise<McpAuthorization> {
    const server = this.managed(id);
    if (server.authType !== "oauth") throw new ConflictError(`${server.name} does not sign in with OAuth (authType is ${server.authType})`);
    return this.deps.oauth.start(server, redirectUri, server.oauthScope || this.deps.repository.probe(id)?.oauthScope || "");
  }

  /** Finishes a sign-in with the code the browser came back with, then probes the server with its new token. */
  async completeAuthorization(state: string, code: string): Promise<McpServer> {
    const id = await this.deps.oauth.complete(state, code);
    return this.probe(id);
  }

  /** Every server made here that is on on this machine, with what reaching it takes now. */
  async reachable(): Promise<ReachableMcpServer[]> {
    const disabled = this.deps.repository.disabledOn(this.deps.machineId);
    const servers = this.deps.repository.list().filter((server) => server.enabled && !disabled.has(server.id));
    return Promise.all(servers.map((server) => this.reach(server)));
  }

  /** How to reach a server now, for a probe; undefined when it is gone. */
  async endpointOf(id: string): Promise<McpEndpoint | undefined> {
    const stored = this.deps.repository.get(id);
    if (stored) return (await this.reach(stored)).endpoint;
    return this.harnessServer(id);
  }

  private async reach(server: StoredMcpServer): Promise<ReachableMcpServer> {
    const headers = Object.fromEntries(this.deps.repository.secrets(server.id, "header"));
    let needsSignIn = false;
    if (server.authType === "oauth") {
      const token = await this.deps.oauth.accessToken(server);
      if (token) headers.Authorization = `Bearer ${token}`;
      else needsSignIn = true;
    }
    const env = Object.fromEntries(this.deps.repository.secrets(server.id, "env"));
    return {
      id: server.id,
      endpoint: { name: server.name, transport: server.transport, command: server.command, args: server.args, env, url: server.url, headers },
      needsSignIn,
    };
  }

  /** Probes a server if it is on here; marks it not probed otherwise. */
  private reprobe(id: string): void {
    const server = this.deps.repository.get(id);
    if (server) this.probeAsStored(server, this.deps.repository.isDisabledOn(id, this.deps.machineId));
  }

  private probeAsStored(server: StoredMcpServer, disabledHere: boolean): void {
    if (!server.enabled) this.deps.prober.disconnect(server.id, "turned off");
    else if (disabledHere) this.deps.prober.disconnect(server.id, "turned off on this machine");
    else void this.deps.prober.probe(server.id);
  }

  /** Appends the server's `mcp.updated` event; runs inside the transaction that changed it. */
  publish(id: string): void {
    this.deps.events.append("mcp.updated", id, { server: this.get(id) });
  }

  private managed(id: string): StoredMcpServer {
    const stored = this.deps.repository.get(id);
    if (stored) return stored;
    const harness = this.harnessServer(id);
    if (harness) throw new ConflictError(`${harness.name} is ${harness.harnessId}'s own server (in ${harness.configPath}): change it there`);
    throw new NotFoundError(`no MCP server ${id}`);
  }

  private harnessServer(id: string): HarnessMcpServer | undefined {
    return this.deps.harnessConfigs.servers().find((server) => harnessServerId(server) === id);
  }

  private managedView(
    server: StoredMcpServer,
    names: { header: string[]; env: string[] } | undefined,
    probe: StoredMcpProbe | undefined,
    disabledHere: boolean,
  ): McpServer {
    const state = probe ?? NOT_PROBED;
    return {
      id: server.id,
      name: server.name,
      kind: "managed",
      canEdit: true,
      canRemove: true,
      enabled: server.enabled,
      disabledHere,
      transport: server.transport,
      url: server.url,
      command: server.command,
      args: server.args,
      headerNames: names?.header ?? [],
      environmentNames: names?.env ?? [],
      authType: server.authType,
      // What the last probe on this machine found (StoredMcpProbe has the server's own fields).
      ...state,
      oauthScope: server.oauthScope || state.oauthScope,
      configPath: null,
      createdAt: server.createdAt,
      updatedAt: server.updatedAt,
    };
  }

  private timestamp(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

/** A harness's server keeps one id while its harness and name stay: a digest, not a stored row. */
function harnessServerId(server: { harnessId: McpServerKind; name: string }): string {
  return `mcpx_${createHash("sha256").update(`${server.harnessId}\0${server.name}`).digest("hex").slice(0, 20)}`;
}

function harnessView(server: HarnessMcpServer, probe: StoredMcpProbe | undefined): McpServer {
  const state = probe ?? NOT_PROBED;
  return {
    id: harnessServerId(server),
    name: server.name,
    kind: server.harnessId,
    canEdit: false,
    canRemove: false,
    enabled: server.enabled,
    disabledHere: false,
    transport: server.transport,
    url: server.url,
    command: server.command,
    args: server.args,
    headerNames: Object.keys(server.headers),
    environmentNames: Object.keys(server.env),
    authType: "none",
    ...state,
    configPath: server.configPath,
    // The harness's file says no more than when it last changed.
    createdAt: server.configChangedAt,
    updatedAt: server.configChangedAt,
  };
}

function definedFields<T extends object, K extends keyof T>(body: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => body[key] !== undefined).map((key) => [key, body[key]])) as Partial<Pick<T, K>>;
}

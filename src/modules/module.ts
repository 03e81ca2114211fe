import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import type { ConfigFile } from "../config/config.ts";
import type { DataPaths } from "../config/paths.ts";
import type { EventKinds } from "../events/event-log.ts";
import type { Route } from "../http/route.ts";
import type { Logger } from "../logging/logger.ts";
import type { UpdateStatus } from "../schemas/update.ts";
import type { Store } from "../store/database.ts";
import type { ServerIdentity } from "../system/identity.ts";

/** A resource the server serves, once built: its routes and the work it runs beside them. */
export interface AtriumModule {
  routes: Route[];
  /** Runs once the server answers on its port (recovery, a first scan); a promise it returns, the server's stop waits for. */
  start?(): unknown;
  /** Stops what it runs (processes, timers, sign-ins) before the store closes. */
  stop?(): unknown;
}

/**
 * What every module is built with: the server's shared parts, and the modules built before it (the
 * core first: the event log, the event streams, the child-process registry; src/modules/core-module.ts).
 */
export interface ModuleContext {
  store: Store;
  paths: DataPaths;
  identity: ServerIdentity;
  logger: Logger;
  /** The access tokens, to tell Atrium's own credentials from anything else. */
  tokens: AccessTokens;
  clock: Clock;
  /** config.json as the user wrote it; each module reads its own keys. */
  config: ConfigFile;
  /** What the server itself offers: its stop (an update restarts into the new build), its migration's state, and where it listens. */
  /** `url`: where this machine's agents reach the server; `reachableUrls`: where other devices do, best first. */
  /** `plainTextBeyondLoopback`: it listens beyond loopback without TLS, so what it serves crosses the network in clear text. */
  server: { stop(): Promise<void>; migrationState(): UpdateStatus["migrationState"]; url: string; reachableUrls(): string[]; plainTextBeyondLoopback: boolean };
  modules: BuiltModules;
}

/**
 * A resource as the server's module list names it. What it declares is known before it is built:
 * info lists the features, and the OpenAPI document the events, while the database still migrates.
 */
export interface ModuleDefinition<Name extends string = string, Built extends AtriumModule = AtriumModule, Tuning = unknown> {
  name: Name;
  /** Feature markers for /v1/info, so clients can adapt without version sniffing. */
  features: readonly string[];
  /** The events it publishes, with their payloads' schemas. */
  eventKinds: EventKinds;
  /** `tuning` is what tests replace (timeouts, environments); absent in a real server. */
  create(context: ModuleContext, tuning: Tuning | undefined): Built;
}

export function defineModule<Name extends string, Built extends AtriumModule, Tuning = never>(
  definition: ModuleDefinition<Name, Built, Tuning>,
): ModuleDefinition<Name, Built, Tuning> {
  return definition;
}

/** The modules built so far, found by their definition; the list's order puts a module after those it uses. */
export class BuiltModules {
  private readonly built = new Map<ModuleDefinition, AtriumModule>();

  add(definition: ModuleDefinition, module: AtriumModule): void {
    this.built.set(definition, module);
  }

  get<Built extends AtriumModule>(definition: ModuleDefinition<string, Built, never>): Built {
    const module = this.built.get(definition as ModuleDefinition);
    if (!module) throw new Error(`the ${definition.name} module is used before it is built: list it earlier`);
    return module as Built;
  }

  /** Every module, in the order it was built. */
  inOrder(): AtriumModule[] {
    return [...this.built.values()];
  }
}

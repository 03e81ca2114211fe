import type { HttpServer } from "../http/web-socket.ts";
import type { DataPaths } from "../config/paths.ts";
import { removeRuntimeFile } from "../config/runtime-file.ts";
import type { ConsoleLink } from "../console/console-links.ts";
import type { EventCompactor } from "../events/event-compactor.ts";
import type { FileLogger, Logger } from "../logging/logger.ts";
import type { BuiltModules } from "../modules/module.ts";
import type { Store } from "../store/database.ts";
import type { ServerIdentity } from "../system/identity.ts";
import type { ServerAddress } from "../system/server-address.ts";
import type { ServerOptions } from "./server-options.ts";
import { loadServerCode, ServerStart, type ServerCode } from "./server-start.ts";

export { CLEAR_TEXT_WARNING } from "./announce.ts";
export { FEATURES } from "../modules/module-features.ts";

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** A running server's parts, as its stop needs them. */
interface ServerParts {
  paths: DataPaths;
  address: ServerAddress;
  identity: ServerIdentity;
  adminToken: string;
  logger: FileLogger;
  store: Store;
  server: HttpServer;
  releaseLock: () => void;
  shutdownGraceMs: number;
  /** The core and every module, in the order they were built, and their code (absent while the server only reports a failed migration). */
  built?: { modules: BuiltModules; code: ServerCode };
  /** The modules' start-up work, which runs after the server listens (worktree pruning, the first harness scan). */
  backgroundStartup: Promise<void>;
}

/**
 * The composition root: opens the store, builds the core and the modules (src/modules/modules.ts) and
 * serves their routes. Every collaborator is created in a start and passed in, so tests can start as
 * many servers as they like.
 */
export class AtriumServer {
  readonly paths: DataPaths;
  /** Where it is reached from this machine and others (docs/remote-access.md). */
  readonly address: ServerAddress;
  readonly identity: ServerIdentity;
  readonly adminToken: string;
  readonly logger: Logger;
  readonly backgroundStartup: Promise<void>;
  private stopping: Promise<void> | undefined;

  private constructor(private readonly parts: ServerParts) {
    this.paths = parts.paths;
    this.address = parts.address;
    this.identity = parts.identity;
    this.adminToken = parts.adminToken;
    this.logger = parts.logger;
    this.backgroundStartup = parts.backgroundStartup;
  }

  /** Where this machine's CLI reaches the server. */
  get url(): string {
    return this.address.localUrl;
  }

  get port(): number {
    return this.parts.server.port ?? 0;
  }

  /** The event log's compaction (absent while the server only reports a failed migration). */
  get compactor(): EventCompactor | undefined {
    return this.core?.compactor;
  }

  /** Event streams currently connected (the hub drops clients that fall too far behind). */
  get openStreams(): number {
    return this.core?.streams.openStreams ?? 0;
  }

  /**
   * A console sign-in link while no console has ever signed in with one (a new user's first start),
   * so that they never need the token file; undefined after that.
   */
  firstSignInLink(): ConsoleLink | undefined {
    const built = this.parts.built;
    const links = built?.modules.get(built.code.consoleModule).links;
    return links && !links.anySignedIn() ? links.create() : undefined;
  }

  private get core() {
    const built = this.parts.built;
    return built?.modules.get(built.code.coreModule);
  }

  /**
   * Starts serving, in phases: the lock, the store, an early listener (health from the first
   * millisecond), the migration, the core, the modules, and the hand-over of the socket to the full
   * server. A database that needs migrating is migrated in a worker thread while the early listener
   * answers health with the progress (everything else gets 503). If that migration fails, the server
   * stays up reporting why, unless it is a new build started by a service manager after an update:
   * that one rolls back and fails its start. A start that fails gives back all it took.
   */
  static async start(options: ServerOptions): Promise<AtriumServer> {
    const start = new ServerStart(options);
    const releaseLock = start.lock();
    // Bound once built: an update stops this server before starting the new build.
    let started: AtriumServer | undefined;
    try {
      const opened = await start.openStore();
      const early = await start.listenEarly(opened);
      const { paths, logger } = start;
      const { store, identity, adminToken } = opened;
      const shutdownGraceMs = options.tuning?.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
      const parts = { paths, logger, store, identity, adminToken, address: early.address, server: early.server, releaseLock, shutdownGraceMs };
      if (!(await start.migrate(opened))) return new AtriumServer({ ...parts, backgroundStartup: Promise.resolve() });
      const code = await loadServerCode();
      const context = start.moduleContext(opened, early, () => started?.stop() ?? Promise.resolve());
      start.buildCore(code, context, early.status);
      start.buildModules(code, context);
      const backgroundStartup = start.handOver(code, context.modules, early, opened.tokens);
      started = new AtriumServer({ ...parts, built: { modules: context.modules, code }, backgroundStartup });
      return started;
    } catch (error) {
      start.abandon(error);
      throw error;
    }
  }

  /** Graceful stop: event streams end, in-flight requests finish, then the database closes. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    const { logger, server, built, store } = this.parts;
    const core = this.core;
    logger.info("shutting down");
    await core?.compactor.stop();
    // Stop accepting first, so no stream opens after the open ones are closed.
    const graceful = server.stop(false);
    core?.streams.closeAll();
    // Agents and probes first: start-up work and requests waiting on them then end at once. The core,
    // built first, stops last: its stop ends whatever child process a module left running.
    for (const module of (built?.modules.inOrder() ?? []).reverse()) await module.stop?.();
    await this.backgroundStartup;
    await this.closeConnections(graceful);
    core?.events.close();
    await store.stopBackgroundCheckpoints();
    store.close();
    removeRuntimeFile(this.paths.runtime, process.pid);
    this.parts.releaseLock();
    logger.info("stopped");
    logger.close();
  }

  /** In-flight requests get a grace period; a peer that never reads must not hold the exit forever. */
  private async closeConnections(graceful: Promise<void>): Promise<void> {
    const { shutdownGraceMs, server } = this.parts;
    const timedOut = await Promise.race([graceful.then(() => false), Bun.sleep(shutdownGraceMs).then(() => true)]);
    if (!timedOut) return;
    this.logger.warn("requests still open after the grace period; closing their connections", { graceMs: shutdownGraceMs });
    await server.stop(true);
  }
}

import { existsSync } from "node:fs";
import type { HttpServer } from "../http/web-socket.ts";
import { AccessTokens, readOrCreateAdminToken } from "../auth/access-tokens.ts";
import { systemClock, type Clock } from "../clock.ts";
import { dataPaths, ensureDataDir, type DataPaths } from "../config/paths.ts";
import { startEarlyListener, type EarlyListener } from "../http/early-listener.ts";
import { hostCheck } from "../http/host-check.ts";
import { RefusalLog } from "../http/refusal-log.ts";
import { systemRoutes } from "../http/routes/system-routes.ts";
import { FileLogger } from "../logging/logger.ts";
import { BuiltModules, type ModuleContext } from "../modules/module.ts";
import { FEATURES } from "../modules/module-features.ts";
import { migrateInBackground } from "../store/background-migration.ts";
import { Store } from "../store/database.ts";
import { MetaRepository } from "../store/meta-repository.ts";
import { currentSchemaVersion, migrate, migrations, type Migration, type MigrationReport } from "../store/migrations.ts";
import { createDatabaseIfMissing } from "../store/new-database.ts";
import { dateSchemaImage, embeddedSchemaImage } from "../store/schema-image.ts";
import { TokenRepository } from "../store/token-repository.ts";
import { buildInfo } from "../system/build-info.ts";
import { loadIdentity, osMachineId, type ServerIdentity } from "../system/identity.ts";
import { MigrationProgress } from "../system/migration-progress.ts";
import { serverAddress, type ListenSpec, type ServerAddress } from "../system/server-address.ts";
import { isLoopbackHost } from "../system/loopback.ts";
import { SystemStatus } from "../system/system-status.ts";
import { beginUpdateStartupGuard, recordUpdateMigration } from "../update/update-startup.ts";
import type { UpdateStartupGuard } from "../update/startup-guard.ts";
import { announce } from "./announce.ts";
import { acquireDataDirLock } from "./data-dir-lock.ts";
import type { ServerOptions } from "./server-options.ts";
import { readTls } from "./tls-files.ts";

/**
 * How long one write waits for another process's lock on the database (a CLI command, a backup tool):
 * SQLite waits synchronously, so every request stalls meanwhile. Past it, a request is answered 503
 * and background writes (streamed replies) retry with backoff.
 */
const SERVER_BUSY_TIMEOUT_MS = 500;

/** The database, open, and what is read from it before anything listens. */
export interface OpenedStore {
  store: Store;
  migration: MigrationProgress;
  identity: ServerIdentity;
  adminToken: string;
  tokens: AccessTokens;
}

/** The socket, bound, with what its early routes answer from and what the full server takes over. */
/**
 * Most of the server's code: the modules (with their routes and schemas) and the HTTP app. Evaluated
 * once the socket listens, so health answers before it (about 100 ms of a compiled cold start).
 */
export interface ServerCode {
  coreModule: typeof import("../modules/core-module.ts").coreModule;
  consoleModule: typeof import("../modules/console-module.ts").consoleModule;
  modules: typeof import("../modules/modules.ts").MODULES;
  createHttpApp: typeof import("../http/app.ts").createHttpApp;
  serveOn: typeof import("../http/app.ts").serveOn;
}

export async function loadServerCode(): Promise<ServerCode> {
  const [core, console, modules, app] = await Promise.all([
    import("../modules/core-module.ts"),
    import("../modules/console-module.ts"),
    import("../modules/modules.ts"),
    import("../http/app.ts"),
  ]);
  return {
    coreModule: core.coreModule,
    consoleModule: console.consoleModule,
    modules: modules.MODULES,
    createHttpApp: app.createHttpApp,
    serveOn: app.serveOn,
  };
}

export interface EarlyServing {
  listener: EarlyListener;
  server: HttpServer;
  address: ServerAddress;
  listenSpec: ListenSpec;
  status: SystemStatus;
  refusals: RefusalLog;
  checkHost: ReturnType<typeof hostCheck>;
}

/**
 * One start of the server, phase by phase (AtriumServer.start runs them in order). It keeps what the
 * phases took (the lock, the database, the port, an update's start-up guard) so that a start that
 * fails gives all of it back.
 */
export class ServerStart {
  readonly startedAt = new Date();
  readonly paths: DataPaths;
  readonly logger: FileLogger;
  private readonly migrations: Migration[];
  private readonly clock: Clock;
  private releaseLock: (() => void) | undefined;
  private updateGuard: UpdateStartupGuard | undefined;
  private store: Store | undefined;
  private listener: EarlyListener | undefined;

  constructor(private readonly options: ServerOptions) {
    this.paths = dataPaths(options.dataDir);
    ensureDataDir(this.paths);
    this.logger = new FileLogger({ file: this.paths.logFile, level: options.logLevel, echoToStderr: options.echoLogs, maxBytes: 10 * 1024 * 1024 });
    this.migrations = options.tuning?.migrations ?? migrations;
    this.clock = options.tuning?.clock ?? systemClock;
  }

  /** One server per data dir, before anything in it is touched; returns the lock's release. */
  lock(): () => void {
    this.releaseLock = acquireDataDirLock(this.paths.lock);
    return this.releaseLock;
  }

  /** Opens the database (a new one is made with its tables first), and reads the identity and tokens. */
  async openStore(): Promise<OpenedStore> {
    this.updateGuard = beginUpdateStartupGuard(this.paths.root, this.logger);
    // A first start makes the database whole, with every migration, before it listens: nothing to serve meanwhile.
    const image = existsSync(this.paths.database) ? undefined : await embeddedSchemaImage();
    const created = createDatabaseIfMissing(this.paths.database, { list: this.migrations, image });
    const store = Store.open(this.paths.database, { busyTimeoutMs: this.options.tuning?.busyTimeoutMs ?? SERVER_BUSY_TIMEOUT_MS });
    this.store = store;
    if (created && image) dateSchemaImage(store, new Date(this.clock.now()));
    const migration = new MigrationProgress(currentSchemaVersion(store), this.migrations[this.migrations.length - 1]?.version ?? 0);
    if (created) this.finishMigration(migration, created);
    else if (migration.status().schemaVersion === 0) this.finishMigration(migration, migrate(store, { list: this.migrations }));
    const identity = loadIdentity(new MetaRepository(store), this.options.config.machineId ?? osMachineId());
    const adminToken = readOrCreateAdminToken(this.paths.adminToken);
    return { store, migration, identity, adminToken, tokens: new AccessTokens(adminToken, new TokenRepository(store)) };
  }

  /**
   * Binds the socket now: health answers while the rest is built (and while the database migrates),
   * and the full server takes this socket over when it is ready. A named token's use is not recorded
   * in this phase: the migration worker may hold the write lock. Health says so from its first answer.
   */
  async listenEarly({ store, identity, migration, tokens }: OpenedStore): Promise<EarlyServing> {
    const { options, logger, startedAt } = this;
    const bindAddress = { host: options.host, port: options.port };
    const migrationStatus = () => migration.status();
    const status = new SystemStatus({ store, identity, build: buildInfo, startedAt, bindAddress, migration: migrationStatus, features: FEATURES });
    if (migration.pending) migration.started();
    const refusals = new RefusalLog(logger, this.clock);
    const checkHost = hostCheck(options.host, options.config.allowedHosts);
    const tls = options.tls ? readTls(options.tls) : undefined;
    const listener = startEarlyListener({
      host: options.host,
      port: options.port,
      tls,
      routes: systemRoutes(status),
      tokens: tokens.withoutRecordingUse(),
      refusals,
      checkHost,
      logger,
      unavailableReason: () => (migration.status().state === "idle" ? undefined : migration.unavailableReason()),
    });
    this.listener = listener;
    bindAddress.port = listener.server.port ?? options.port;
    const listenSpec = { host: options.host, port: bindAddress.port, certificatePem: tls?.cert, publicUrl: options.config.publicUrl };
    const address = serverAddress(listenSpec);
    announce(options.host, address, { paths: this.paths, logger, startedAt, port: bindAddress.port, pending: migration.pending });
    // A moment for the event loop before the rest is built: a health check that is already waiting
    // (a supervisor polls as soon as the port answers) is served now, not after the build. A timer,
    // not setImmediate: Bun reads a new connection's request only on a later turn of its loop.
    await Bun.sleep(1);
    return { listener, server: listener.server, address, listenSpec, status, refusals, checkHost };
  }

  /**
   * Migrates a database that needs it in a worker thread, while health reports the progress. False
   * when that failed: the server then only reports why, unless it is a new build started by a service
   * manager after an update, which throws (and so rolls back).
   */
  async migrate({ migration }: OpenedStore): Promise<boolean> {
    if (!migration.pending) return true;
    try {
      const job = { path: this.paths.database, backupDir: this.paths.backups, list: this.migrations };
      this.finishMigration(migration, await migrateInBackground(job, (progress) => migration.step(progress)));
      return true;
    } catch (error) {
      migration.failed(error);
      this.logger.error("the database migration failed; only health is served", { detail: migration.status().detail });
      // The previous build, which the service manager starts next, still reads the unchanged database.
      if (this.updateGuard) throw error;
      return false;
    }
  }

  /** What every module is built with; `stop` is the server's own (an update restarts into the new build). */
  moduleContext({ store, identity, tokens, migration }: OpenedStore, early: EarlyServing, stop: () => Promise<void>): ModuleContext {
    const server = {
      stop,
      migrationState: () => migration.status().state,
      url: early.address.agentUrl,
      // Read again each time: the network may have come up, or changed, since the start.
      reachableUrls: () => serverAddress(early.listenSpec).reachableUrls,
      plainTextBeyondLoopback: !early.address.secure && !isLoopbackHost(this.options.host),
    };
    const { paths, logger, clock } = this;
    return { store, paths, identity, logger, tokens, clock, config: this.options.config, server, modules: new BuiltModules() };
  }

  /** The core module (the event log, its streams and compaction, the child processes), which health reads too. */
  buildCore({ coreModule }: ServerCode, context: ModuleContext, status: SystemStatus): void {
    context.store.startBackgroundCheckpoints((error) => this.logger.error("background WAL checkpoints stopped; SQLite checkpoints inline again", { error }));
    const core = coreModule.create(context, this.options.tuning);
    context.modules.add(coreModule, core);
    status.attachEventLog({ log: core.events, compactor: core.compactor, policy: core.retention });
  }

  /** Every module in the list's order, each with its event kinds taken by the log first. */
  buildModules({ coreModule, modules }: ServerCode, context: ModuleContext): void {
    const { events } = context.modules.get(coreModule);
    const tunings: Record<string, unknown> = this.options.tuning?.modules ?? {};
    for (const definition of modules) {
      events.accept(definition.eventKinds);
      context.modules.add(definition, definition.create(context, tunings[definition.name] as never));
    }
  }

  /** The full server takes the socket over; then the modules' start-up work begins (the promise: all of it done). */
  handOver({ coreModule, createHttpApp, serveOn }: ServerCode, built: BuiltModules, early: EarlyServing, tokens: AccessTokens): Promise<void> {
    const modules = built.inOrder();
    const routes = [...systemRoutes(early.status), ...modules.flatMap((module) => module.routes)];
    const { checkHost, refusals } = early;
    const app = createHttpApp({
      routes,
      tokens,
      logger: this.logger,
      version: buildInfo.version,
      eventPayloads: built.get(coreModule).events.kinds,
      checkHost,
      refusals,
    });
    early.listener.handOver(serveOn(app, early.server), tokens);
    return Promise.all(modules.map((module) => module.start?.())).then(() => undefined);
  }

  /**
   * Whatever failed, the next start must find neither an open database, nor our port, nor our lock;
   * and a supervised update whose new build cannot start puts the previous one back (and its database, if migrated).
   */
  abandon(error: unknown): void {
    void this.listener?.server.stop(true);
    this.store?.close();
    this.updateGuard?.startFailed(error);
    this.releaseLock?.();
  }

  private finishMigration(migration: MigrationProgress, report: MigrationReport): void {
    migration.finished(report);
    if (report.applied.length > 0) this.logger.info("database migrated", { ...report });
    if (report.backupPath) recordUpdateMigration(this.paths.root, { path: this.paths.database, backup: report.backupPath });
  }
}

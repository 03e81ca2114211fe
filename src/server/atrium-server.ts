import type { Server } from "bun";
import { AccessTokens, readOrCreateAdminToken } from "../auth/access-tokens.ts";
import { systemClock } from "../clock.ts";
import { dataPaths, ensureDataDir, type DataPaths } from "../config/paths.ts";
import { removeRuntimeFile, writeRuntimeFile } from "../config/runtime-file.ts";
import { EventLog } from "../events/event-log.ts";
import { EventStreamHub, defaultStreamLimits } from "../events/event-stream-hub.ts";
import { EventCompactor, defaultCompactionTuning, type CompactionTuning, type RetentionPolicy } from "../events/event-compactor.ts";
import { ConversationRepository } from "../store/conversation-repository.ts";
import { createHttpApp, serveOn } from "../http/app.ts";
import { isLoopbackHost } from "../system/loopback.ts";
import { startEarlyListener, type EarlyListener } from "../http/early-listener.ts";
import { hostCheck } from "../http/host-check.ts";
import { RefusalLog } from "../http/refusal-log.ts";
import { eventRoutes } from "../http/routes/event-routes.ts";
import { systemRoutes } from "../http/routes/system-routes.ts";
import { FileLogger, type Logger } from "../logging/logger.ts";
import { BuiltModules, type AtriumModule, type ModuleContext } from "../modules/module.ts";
import { MODULES } from "../modules/modules.ts";
import { consoleModule } from "../modules/console-module.ts";
import type { ConsoleLink } from "../console/console-links.ts";
import { ChildProcesses } from "../process/child-processes.ts";
import { migrateInBackground } from "../store/background-migration.ts";
import { Store } from "../store/database.ts";
import { EventRepository } from "../store/event-repository.ts";
import { MetaRepository } from "../store/meta-repository.ts";
import { currentSchemaVersion, migrate, migrations, type MigrationReport } from "../store/migrations.ts";
import { TokenRepository } from "../store/token-repository.ts";
import { buildInfo } from "../system/build-info.ts";
import { loadIdentity, osMachineId, type ServerIdentity } from "../system/identity.ts";
import { MigrationProgress } from "../system/migration-progress.ts";
import { SystemStatus } from "../system/system-status.ts";
import type { UpdateStartupGuard } from "../update/startup-guard.ts";
import { beginUpdateStartupGuard, recordUpdateMigration } from "../update/server-updates.ts";
import { acquireDataDirLock } from "./data-dir-lock.ts";
import type { ServerOptions } from "./server-options.ts";
import { readTls } from "./tls-files.ts";
import { serverAddress, type ServerAddress } from "../system/server-address.ts";

/** What the server itself offers, whatever modules it runs. */
const CORE_FEATURES = ["events.sse", "events.replay", "tokens.named", "openapi"];
/** Markers of what this server can do, so clients can adapt without version sniffing. */
export const FEATURES = [...CORE_FEATURES, ...MODULES.flatMap((module) => module.features)];

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/**
 * How long one write waits for another process's lock on the database (a CLI command, a backup tool):
 * SQLite waits synchronously, so every request stalls meanwhile. Past it, a request is answered 503
 * and background writes (streamed replies) retry with backoff.
 */
const SERVER_BUSY_TIMEOUT_MS = 500;

/** A running server's parts, as its stop needs them. */
interface ServerParts {
  paths: DataPaths;
  address: ServerAddress;
  identity: ServerIdentity;
  adminToken: string;
  logger: Logger;
  store: Store;
  server: Server<undefined>;
  /** Absent while the server only reports a failed migration. */
  hub?: EventStreamHub;
  events?: EventLog;
  compactor?: EventCompactor;
  /** Stopped in the reverse of the order they were built in. */
  modules: AtriumModule[];
  /** The same, by definition (absent while the server only reports a failed migration). */
  built?: BuiltModules;
  children?: ChildProcesses;
  /** The modules' start-up work, which runs after the server listens (worktree pruning, the first harness scan). */
  backgroundStartup: Promise<void>;
  shutdownGraceMs: number;
  releaseLock: () => void;
}

/**
 * The composition root: opens the store, builds the modules (src/modules/modules.ts) and serves their
 * routes. Every collaborator is created here and passed in, so tests can start as many servers as they like.
 */
export class AtriumServer {
  private stopping: Promise<void> | undefined;

  private constructor(private readonly parts: ServerParts) {}

  /** Where this machine's CLI reaches the server. */
  get url(): string {
    return this.parts.address.localUrl;
  }

  /**
   * A console sign-in link while no console has ever signed in with one (a new user's first start),
   * so that they never need the token file; undefined after that.
   */
  firstSignInLink(): ConsoleLink | undefined {
    const links = this.parts.built?.get(consoleModule).links;
    return links && !links.anySignedIn() ? links.create() : undefined;
  }

  /** Where it is reached from this machine and others (docs/remote-access.md). */
  get address(): ServerAddress {
    return this.parts.address;
  }

  get identity(): ServerIdentity {
    return this.parts.identity;
  }

  get adminToken(): string {
    return this.parts.adminToken;
  }

  get logger(): Logger {
    return this.parts.logger;
  }

  get paths(): DataPaths {
    return this.parts.paths;
  }

  /** The event log's compaction (absent while the server only reports a failed migration). */
  get compactor(): EventCompactor | undefined {
    return this.parts.compactor;
  }

  get backgroundStartup(): Promise<void> {
    return this.parts.backgroundStartup;
  }

  /** Event streams currently connected (the hub drops clients that fall too far behind). */
  get openStreams(): number {
    return this.parts.hub?.openStreams ?? 0;
  }

  get port(): number {
    return this.parts.server.port ?? 0;
  }

  /**
   * Starts serving. A database that needs migrating is migrated in a worker thread while a first
   * listener answers health with the progress (everything else gets 503); the full server then takes
   * over the port. If that migration fails, the server stays up reporting why, unless it is a new
   * build started by a service manager after an update: that one rolls back and fails its start.
   */
  static async start(options: ServerOptions): Promise<AtriumServer> {
    const startedAt = new Date();
    const tuning = options.tuning ?? {};
    const paths = dataPaths(options.dataDir);
    ensureDataDir(paths);
    const logger = new FileLogger({ file: paths.logFile, level: options.logLevel, echoToStderr: options.echoLogs, maxBytes: 10 * 1024 * 1024 });
    const releaseLock = acquireDataDirLock(paths.lock);
    let store: Store | undefined;
    let updateGuard: UpdateStartupGuard | undefined;
    let listener: EarlyListener | undefined;
    // Bound once built: an update stops this server before starting the new build.
    let started: AtriumServer | undefined;
    try {
      updateGuard = beginUpdateStartupGuard(paths.root, logger);
      store = Store.open(paths.database, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
      const migrationList = tuning.migrations ?? migrations;
      const migration = new MigrationProgress(currentSchemaVersion(store), migrationList[migrationList.length - 1]?.version ?? 0);
      const finishMigration = (report: MigrationReport) => {
        migration.finished(report);
        if (report.applied.length > 0) logger.info("database migrated", { ...report });
        if (report.backupPath) recordUpdateMigration(paths.root, { path: paths.database, backup: report.backupPath });
      };
      // A new database has nothing to serve while its tables are created, and no identity before.
      if (migration.status().schemaVersion === 0) finishMigration(migrate(store, { list: migrationList }));
      const identity = loadIdentity(new MetaRepository(store), options.config.machineId ?? osMachineId());
      const adminToken = readOrCreateAdminToken(paths.adminToken);
      const tokens = new AccessTokens(adminToken, new TokenRepository(store));
      const bindAddress = { host: options.host, port: options.port };
      const checkHost = hostCheck(options.host, options.config.allowedHosts);
      const status = new SystemStatus({ store, identity, build: buildInfo, startedAt, bindAddress, migration: () => migration.status(), features: FEATURES });

      // Bound now: health answers while the rest is built (and while the database migrates), and the
      // full server takes this socket over when it is ready. A named token's use is not recorded in
      // this phase: the migration worker may hold the write lock. Health says so from its first answer.
      if (migration.pending) migration.started();
      const refusals = new RefusalLog(logger);
      const tls = options.tls ? readTls(options.tls) : undefined;
      listener = startEarlyListener({
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
      bindAddress.port = listener.server.port ?? options.port;
      const listenSpec = { host: options.host, port: bindAddress.port, certificatePem: tls?.cert, publicUrl: options.config.publicUrl };
      const address = serverAddress(listenSpec);
      announce(options, address, { paths, logger, startedAt, port: bindAddress.port, pending: migration.pending });
      // A moment for the event loop before the rest is built: a health check that is already waiting
      // (a supervisor polls as soon as the port answers) is served now, not after the build. A timer,
      // not setImmediate: Bun reads a new connection's request only on a later turn of its loop.
      await Bun.sleep(1);
      const shared = { paths, address, identity, adminToken, logger, store, server: listener.server, releaseLock };
      const shutdownGraceMs = tuning.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
      if (migration.pending) {
        try {
          const job = { path: paths.database, backupDir: paths.backups, list: migrationList };
          finishMigration(await migrateInBackground(job, (progress) => migration.step(progress)));
        } catch (error) {
          migration.failed(error);
          logger.error("the database migration failed; only health is served", { detail: migration.status().detail });
          // The previous build, which the service manager starts next, still reads the unchanged database.
          if (updateGuard) throw error;
          return new AtriumServer({ ...shared, modules: [], backgroundStartup: Promise.resolve(), shutdownGraceMs });
        }
      }
      store.startBackgroundCheckpoints((error) => logger.error("background WAL checkpoints stopped; SQLite checkpoints inline again", { error }));
      const events = new EventLog(store, new EventRepository(store), identity.serverId, undefined, { writeBehindMs: tuning.writeBehindMs });
      const hub = new EventStreamHub(events, logger, { ...defaultStreamLimits, ...tuning.streamLimits });
      const retention = eventRetention(options.config);
      const compactor = new EventCompactor({
        store,
        events: new EventRepository(store),
        conversation: new ConversationRepository(store),
        log: events,
        clock: tuning.clock ?? systemClock,
        logger,
        policy: retention,
        tuning: { ...compactionTimes(options.config), ...tuning.compaction },
      });
      status.attachEventLog({ log: events, compactor, policy: retention });
      const children = new ChildProcesses(paths.children, logger);
      // Agents and probes a killed server left running belong to nothing any more.
      children.reapOrphans();
      const context: ModuleContext = {
        store,
        paths,
        identity,
        logger,
        events,
        streams: hub,
        children,
        tokens,
        clock: tuning.clock ?? systemClock,
        config: options.config,
        server: {
          stop: () => started?.stop() ?? Promise.resolve(),
          migrationState: () => migration.status().state,
          url: address.agentUrl,
          // Read again each time: the network may have come up, or changed, since the start.
          reachableUrls: () => serverAddress(listenSpec).reachableUrls,
        },
        modules: new BuiltModules(),
      };
      const modules = buildModules(context, options);
      const routes = [...systemRoutes(status), ...eventRoutes(events, hub, tokens), ...modules.flatMap((module) => module.routes)];
      const app = createHttpApp({ routes, tokens, logger, version: buildInfo.version, eventPayloads: events.kinds, checkHost, refusals });
      listener.handOver(serveOn(app, listener.server), tokens);
      const backgroundStartup = Promise.all(modules.map((module) => module.start?.())).then(() => undefined);
      compactor.start();
      started = new AtriumServer({ ...shared, hub, events, compactor, modules, built: context.modules, children, backgroundStartup, shutdownGraceMs });
      return started;
    } catch (error) {
      // Whatever failed, the next start must find neither an open database, nor our port, nor our lock.
      void listener?.server.stop(true);
      store?.close();
      // A supervised update whose new build cannot start puts the previous one back (and its database, if migrated).
      updateGuard?.startFailed(error);
      releaseLock();
      throw error;
    }
  }

  /** Graceful stop: event streams end, in-flight requests finish, then the database closes. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const { logger, server, hub, compactor, modules, children, store, shutdownGraceMs } = this.parts;
      logger.info("shutting down");
      await compactor?.stop();
      // Stop accepting first, so no stream opens after the open ones are closed.
      const graceful = server.stop(false);
      hub?.closeAll();
      // Agents and probes first: start-up work and requests waiting on them then end at once.
      for (const module of [...modules].reverse()) await module.stop?.();
      children?.stopAll();
      await this.parts.backgroundStartup;
      // In-flight requests get a grace period; a peer that never reads must not hold the exit forever.
      const timedOut = await Promise.race([graceful.then(() => false), Bun.sleep(shutdownGraceMs).then(() => true)]);
      if (timedOut) {
        logger.warn("requests still open after the grace period; closing their connections", { graceMs: shutdownGraceMs });
        await server.stop(true);
      }
      this.parts.events?.close();
      await store.stopBackgroundCheckpoints();
      store.close();
      removeRuntimeFile(this.parts.paths.runtime, process.pid);
      this.parts.releaseLock();
      logger.info("stopped");
    })();
    return this.stopping;
  }
}

const DAY_MS = 86_400_000;

/** config.json's retention: 30 days and 512 MB unless it says otherwise. */
function eventRetention(config: ServerOptions["config"]): RetentionPolicy {
  return { retentionMs: (config.eventRetentionDays ?? 30) * DAY_MS, maxBytes: (config.eventLogMaxMB ?? 512) * 1024 * 1024 };
}

/** config.json's compaction interval (an hour by default); the first pass a minute after the start, or sooner. */
function compactionTimes(config: ServerOptions["config"]): Partial<CompactionTuning> {
  if (config.eventCompactionMinutes === undefined) return {};
  const intervalMs = config.eventCompactionMinutes * 60_000;
  return { intervalMs, firstPassMs: Math.min(intervalMs, defaultCompactionTuning.firstPassMs) };
}

/** Builds every module in the list's order, each with its event kinds taken by the log. */
function buildModules(context: ModuleContext, options: ServerOptions): AtriumModule[] {
  const tunings: Record<string, unknown> = options.tuning?.modules ?? {};
  return MODULES.map((definition) => {
    context.events.accept(definition.eventKinds);
    const module = definition.create(context, tunings[definition.name] as never);
    context.modules.add(definition, module);
    return module;
  });
}

/** Tells `atrium status` (server.json) and the log where the server listens. */
function announce(
  options: ServerOptions,
  address: ServerAddress,
  at: { paths: DataPaths; logger: Logger; startedAt: Date; port: number; pending: boolean },
): void {
  const { paths, logger, port } = at;
  const url = address.localUrl;
  try {
    writeRuntimeFile(paths.runtime, {
      pid: process.pid,
      url,
      reachableUrls: address.reachableUrls,
      host: options.host,
      port,
      startedAt: at.startedAt.toISOString(),
      version: buildInfo.version,
    });
  } catch (error) {
    // A full disk must not keep the server from serving reads; only `atrium status` loses its pointer.
    logger.error("server.json could not be written; atrium status will not find this server", { error });
  }
  const listening = { url, reachableUrls: address.reachableUrls, pid: process.pid, version: buildInfo.version, dataDir: paths.root };
  logger.info(at.pending ? "listening while the database migrates" : "listening", listening);
  if (!isLoopbackHost(options.host)) {
    if (address.secure) logger.warn("listening beyond this machine over https; every request needs a bearer token", { host: options.host });
    else logger.warn(CLEAR_TEXT_WARNING, { host: options.host });
  }
}

/** What serving plain http beyond loopback means, and the ways out (docs/remote-access.md). */
export const CLEAR_TEXT_WARNING =
  "listening beyond this machine over plain http: the bearer token, prompts, replies and files cross the network in clear text. " +
  "Serve https (--tls-cert and --tls-key, or tls in config.json, with a certificate from tailscale cert or mkcert), " +
  "or listen on 127.0.0.1 behind tailscale serve or a reverse proxy (docs/remote-access.md)";

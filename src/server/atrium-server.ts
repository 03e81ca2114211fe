import type { Server } from "bun";
import { dataPaths, ensureDataDir, type DataPaths } from "../config/paths.ts";
import { Store } from "../store/database.ts";
import { currentSchemaVersion, migrate, migrations, type Migration, type MigrationReport } from "../store/migrations.ts";
import { migrateInBackground } from "../store/background-migration.ts";
import { MigrationProgress } from "../system/migration-progress.ts";
import { startEarlyListener, type EarlyListener } from "../http/early-listener.ts";
import { RefusalLog } from "../http/refusal-log.ts";
import { MetaRepository } from "../store/meta-repository.ts";
import { TokenRepository } from "../store/token-repository.ts";
import { EventRepository } from "../store/event-repository.ts";
import { SyncRepository } from "../store/sync-repository.ts";
import { AccessTokens, readOrCreateAdminToken } from "../auth/access-tokens.ts";
import { EventLog } from "../events/event-log.ts";
import { EventStreamHub, defaultStreamLimits, type EventStreamLimits } from "../events/event-stream-hub.ts";
import { eventPayloads } from "../events/catalog.ts";
import { SyncService } from "../sync/sync-service.ts";
import { loadIdentity, type ServerIdentity } from "../system/identity.ts";
import { SystemStatus } from "../system/system-status.ts";
import { buildInfo } from "../system/build-info.ts";
import { FileLogger, type Logger, type LogLevel } from "../logging/logger.ts";
import { createHttpApp, serveOn } from "../http/app.ts";
import { hostCheck } from "../http/host-check.ts";
import { isLoopbackAddress } from "../http/auth-guard.ts";
import { systemRoutes } from "../http/routes/system-routes.ts";
import { eventRoutes } from "../http/routes/event-routes.ts";
import { syncRoutes } from "../http/routes/sync-routes.ts";
import { projectRoutes } from "../http/routes/project-routes.ts";
import { ProjectRepository } from "../store/project-repository.ts";
import { WorktreeRepository } from "../store/worktree-repository.ts";
import { ProjectService } from "../projects/project-service.ts";
import { WorktreeService } from "../projects/worktree-service.ts";
import type { Route } from "../http/route.ts";
import { removeRuntimeFile, writeRuntimeFile } from "../config/runtime-file.ts";
import { acquireDataDirLock } from "./data-dir-lock.ts";
import { homedir } from "node:os";
import { HarnessService } from "../harness/harness-service.ts";
import { TerminalLogs } from "../harness/terminal-logs.ts";
import { harnessRegistry, type CustomHarnessConfig } from "../harness/registry.ts";
import { HarnessSettingsRepository } from "../store/harness-settings-repository.ts";
import { HarnessAccountRepository } from "../store/harness-account-repository.ts";
import { HarnessAccounts } from "../harness/harness-accounts.ts";
import { LatestVersions } from "../harness/latest-versions.ts";
import { PackageVersionRepository } from "../store/package-version-repository.ts";
import { ProviderLogins } from "../harness/provider-login.ts";
import { opencodeAuthFile } from "../harness/definitions/opencode.ts";
import { providerLoginRoutes } from "../http/routes/provider-login-routes.ts";
import { sessionRoutes } from "../http/routes/session-routes.ts";
import { SessionService } from "../sessions/session-service.ts";
import { SessionRepository } from "../store/session-repository.ts";
import { TranscriptRepository } from "../store/transcript-repository.ts";
import { FileRepository } from "../store/file-repository.ts";
import { UploadedFiles } from "../files/uploaded-files.ts";
import { ChildProcesses } from "../process/child-processes.ts";
import { fileRoutes } from "../http/routes/file-routes.ts";
import { ConversationRepository } from "../store/conversation-repository.ts";
import { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import { harnessRoutes } from "../http/routes/harness-routes.ts";
import { updateRoutes } from "../http/routes/update-routes.ts";
import { beginUpdateStartupGuard, createServerUpdates, recordUpdateMigration, type ServerUpdateOptions } from "../update/server-updates.ts";
import type { UpdateStartupGuard } from "../update/startup-guard.ts";

export interface ServerOptions {
  dataDir: string;
  host: string;
  port: number;
  logLevel: LogLevel;
  echoLogs: boolean;
  streamLimits?: Partial<EventStreamLimits>;
  /** How long a graceful stop waits for in-flight requests before closing their connections. */
  shutdownGraceMs?: number;
  /** The command that runs this Atrium (for the built-in echo agent); the running one by default. */
  atriumCommand?: string[];
  /** Harnesses declared in config.json. */
  customHarnesses?: CustomHarnessConfig[];
  /** The environment harnesses are looked for in (PATH, HOME, API keys); the server's own by default. */
  harnessEnv?: Record<string, string | undefined>;
  /** Every harness probe (version, login) is cut off after this long. */
  probeTimeoutMs?: number;
  /** Whether harnesses' latest versions are looked up in the npm registry (config `harnessUpdateCheck`); on by default. */
  harnessUpdateCheck?: boolean;
  /** Where GitHub sign-ins (OpenCode's github-copilot provider) go: https://github.com or an Enterprise host. */
  githubUrl?: string;
  /** An agent must answer ACP `initialize` within this long. */
  agentInitializeTimeoutMs?: number;
  /** An agent with no turn for this long is stopped (config `agentIdleMinutes`); it starts again on the next prompt. */
  agentIdleMs?: number;
  /**
   * The first harness scan waits this long after the server listens: it starts a dozen probes at once,
   * which on a 2-core machine would slow the first requests (a supervisor's health check, a client
   * reconnecting). Until it runs, harnesses show where their executables are (`not checked yet`).
   */
  firstScanDelayMs?: number;
  /** After a cancel, an agent that has not ended its turn within this long is stopped. */
  agentCancelGraceMs?: number;
  /** A turn with no word from its agent for this long says so in the session's status. */
  agentSilenceNoticeMs?: number;
  /** A reply whose writes keep failing (locked database, full disk) this long ends its turn in error. */
  replyWriteFailureLimitMs?: number;
  /** Self-update settings (config `update*` keys); without them the server never checks on its own. */
  update?: ServerUpdateOptions;
  /** Host names a loopback server also answers to (config `allowedHosts`); see src/http/host-check.ts. */
  allowedHosts?: string[];
  /** The schema changes this server applies; every released one by default. */
  migrations?: Migration[];
}

/** Markers of what this server can do, so clients can adapt without version sniffing. */
export const FEATURES = ["events.sse", "events.replay", "sync", "tokens.named", "openapi", "projects", "projects.worktrees", "harnesses", "sessions", "update"];

/** How to run this same Atrium: the binary itself, or Bun with the entry script when from source. */
export function currentAtriumCommand(): string[] {
  return buildInfo.compiled ? [process.execPath] : [process.execPath, Bun.main];
}

const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/**
 * How long one write waits for another process's lock on the database (a CLI command, a backup tool):
 * SQLite waits synchronously, so every request stalls meanwhile. Past it, a request is answered 503
 * and background writes (streamed replies) retry with backoff.
 */
const SERVER_BUSY_TIMEOUT_MS = 500;
/** `gemini --version` alone takes 3.5–4.3 s on a 2-core machine; a slow probe keeps a harness ready anyway. */
const DEFAULT_PROBE_TIMEOUT_MS = 20_000;
const DEFAULT_AGENT_INITIALIZE_TIMEOUT_MS = 30_000;
const DEFAULT_AGENT_IDLE_MS = 30 * 60_000;
const DEFAULT_AGENT_CANCEL_GRACE_MS = 2_000;
const DEFAULT_FIRST_SCAN_DELAY_MS = 250;
const DEFAULT_AGENT_SILENCE_NOTICE_MS = 15_000;
const DEFAULT_REPLY_WRITE_FAILURE_LIMIT_MS = 30_000;
/** Streamed text is written and published at least this often while a reply streams. */
const DELTA_FLUSH_MS = 25;
/** OpenCode's own GitHub OAuth app, so a sign-in made here is the one OpenCode would make. */
const OPENCODE_GITHUB_CLIENT_ID = "Ov23li8tweQw6odWQebz";
/** The registry may need a cold round trip; the look-up runs in the background, so it can take longer. */
const LATEST_VERSION_TIMEOUT_MS = 15_000;
const LATEST_VERSION_FRESH_MS = 6 * 3_600_000;
const LATEST_VERSION_RETRY_MS = 15 * 60_000;

/**
 * The composition root: opens the store, wires the services and routes, and serves them. Every
 * collaborator is created here and passed in, so tests can start as many servers as they like.
 */
export class AtriumServer {
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly paths: DataPaths,
    readonly url: string,
    readonly identity: ServerIdentity,
    readonly adminToken: string,
    readonly logger: Logger,
    private readonly store: Store,
    private readonly server: Server<undefined>,
    /** Absent while the server only reports a failed migration. */
    private readonly hub: EventStreamHub | undefined,
    /** Start-up work that runs after the server listens (worktree pruning, the first harness scan). */
    readonly backgroundStartup: Promise<void>,
    private readonly shutdownGraceMs: number,
    private readonly releaseLock: () => void,
    /** Domain work to stop before the store closes (agents, sign-ins in progress). */
    private readonly stopHooks: Array<() => void | Promise<void>>,
  ) {}

  /** Event streams currently connected (the hub drops clients that fall too far behind). */
  get openStreams(): number {
    return this.hub?.openStreams ?? 0;
  }

  get port(): number {
    return this.server.port ?? 0;
  }

  /**
   * Starts serving. A database that needs migrating is migrated in a worker thread while a first
   * listener answers health with the progress (everything else gets 503); the full server then takes
   * over the port. If that migration fails, the server stays up reporting why, unless it is a new
   * build started by a service manager after an update: that one rolls back and fails its start.
   */
  static async start(options: ServerOptions): Promise<AtriumServer> {
    const startedAt = new Date();
    const paths = dataPaths(options.dataDir);
    ensureDataDir(paths);
    const logger = new FileLogger({
      file: paths.logFile,
      level: options.logLevel,
      echoToStderr: options.echoLogs,
      maxBytes: 10 * 1024 * 1024,
    });

    const releaseLock = acquireDataDirLock(paths.lock);
    let store: Store | undefined;
    let updateGuard: UpdateStartupGuard | undefined;
    let listener: EarlyListener | undefined;
    // Bound once constructed: an update stops this server before starting the new build.
    let started: AtriumServer | undefined;
    try {
      updateGuard = beginUpdateStartupGuard(paths.root, logger);
      store = Store.open(paths.database, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
      const migrationList = options.migrations ?? migrations;
      const migration = new MigrationProgress(currentSchemaVersion(store), migrationList[migrationList.length - 1]?.version ?? 0);
      const finishMigration = (report: MigrationReport) => {
        migration.finished(report);
        if (report.applied.length > 0) logger.info("database migrated", { ...report });
        if (report.backupPath) recordUpdateMigration(paths.root, { path: paths.database, backup: report.backupPath });
      };
      // A new database has nothing to serve while its tables are created, and no identity before.
      if (migration.status().schemaVersion === 0) finishMigration(migrate(store, { list: migrationList }));
      const identity = loadIdentity(new MetaRepository(store));
      const adminToken = readOrCreateAdminToken(paths.adminToken);
      const tokens = new AccessTokens(adminToken, new TokenRepository(store));
      const bindAddress = { host: options.host, port: options.port };
      const checkHost = hostCheck(options.host, options.allowedHosts);
      const status = new SystemStatus({
        store,
        identity,
        build: buildInfo,
        startedAt,
        bindAddress,
        migration: () => migration.status(),
        features: FEATURES,
      });
      const announce = (port: number, message: string) => {
        bindAddress.port = port;
        const host = options.host.includes(":") ? `[${options.host}]` : options.host;
        const url = `http://${host}:${port}`;
        try {
          writeRuntimeFile(paths.runtime, { pid: process.pid, url, host: options.host, port, startedAt: startedAt.toISOString(), version: buildInfo.version });
        } catch (error) {
          // A full disk must not keep the server from serving reads; only `atrium status` loses its pointer.
          logger.error("server.json could not be written; atrium status will not find this server", { error });
        }
        logger.info(message, { url, pid: process.pid, version: buildInfo.version, dataDir: paths.root });
        if (!isLoopbackAddress(options.host) && options.host !== "localhost") {
          logger.warn("listening beyond this machine; every request needs a bearer token", { host: options.host });
        }
        return url;
      };

      // Bound now: health answers while the rest is built (and while the database migrates), and the
      // full server takes this socket over when it is ready. A named token's use is not recorded in
      // this phase: the migration worker may hold the write lock.
      // Health says so from its first answer.
      if (migration.pending) migration.started();
      const refusals = new RefusalLog(logger);
      listener = startEarlyListener({
        host: options.host,
        port: options.port,
        routes: systemRoutes(status),
        tokens: tokens.withoutRecordingUse(),
        refusals,
        checkHost,
        logger,
        unavailableReason: () => (migration.status().state === "idle" ? undefined : migration.unavailableReason()),
      });
      const url = announce(listener.server.port ?? options.port, migration.pending ? "listening while the database migrates" : "listening");
      // A moment for the event loop before the rest is built: a health check that is already waiting
      // (a supervisor polls as soon as the port answers) is served now, not after the build. A timer,
      // not setImmediate: Bun reads a new connection's request only on a later turn of its loop.
      await Bun.sleep(1);
      if (migration.pending) {
        try {
          const job = { path: paths.database, backupDir: paths.backups, list: migrationList };
          finishMigration(await migrateInBackground(job, (progress) => migration.step(progress)));
        } catch (error) {
          migration.failed(error);
          logger.error("the database migration failed; only health is served", { detail: migration.status().detail });
          // The previous build, which the service manager starts next, still reads the unchanged database.
          if (updateGuard) throw error;
          return new AtriumServer(
            paths,
            url,
            identity,
            adminToken,
            logger,
            store,
            listener.server,
            undefined,
            Promise.resolve(),
            options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
            releaseLock,
            [],
          );
        }
      }
      store.startBackgroundCheckpoints((error) => logger.error("background WAL checkpoints stopped; SQLite checkpoints inline again", { error }));
      const log = new EventLog(store, new EventRepository(store), identity.serverId);
      const hub = new EventStreamHub(log, logger, { ...defaultStreamLimits, ...options.streamLimits });
      const projectRepository = new ProjectRepository(store);
      const worktrees = new WorktreeService({
        store,
        worktrees: new WorktreeRepository(store),
        projects: projectRepository,
        serverId: identity.serverId,
        worktreesDir: paths.worktrees,
        logger,
      });
      const projects = new ProjectService({
        store,
        projects: projectRepository,
        events: log,
        logger,
        serverId: identity.serverId,
        projectsDir: paths.projects,
        removeWorktrees: (projectId) => worktrees.removeAllOf(projectId),
      });
      projects.removeAbandonedClones();
      const children = new ChildProcesses(paths.children, logger);
      // Agents and probes a killed server left running belong to nothing any more.
      children.reapOrphans();
      const harnessEnv = options.harnessEnv ?? process.env;
      const terminals = new TerminalLogs(store, log, logger);
      const harnesses = new HarnessService({
        terminals,
        logger,
        definitions: harnessRegistry(options.atriumCommand ?? currentAtriumCommand(), options.customHarnesses),
        store,
        settings: new HarnessSettingsRepository(store),
        accounts: new HarnessAccounts({ store, repository: new HarnessAccountRepository(store), accountsDir: paths.accounts }),
        latestVersions:
          options.harnessUpdateCheck === false
            ? undefined
            : new LatestVersions({
                env: harnessEnv,
                home: harnessEnv.HOME ?? homedir(),
                repository: new PackageVersionRepository(store),
                logger,
                timeoutMs: LATEST_VERSION_TIMEOUT_MS,
                freshForMs: LATEST_VERSION_FRESH_MS,
                retryAfterMs: LATEST_VERSION_RETRY_MS,
              }),
        events: log,
        environment: {
          env: harnessEnv,
          home: harnessEnv.HOME ?? homedir(),
          timeoutMs: options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
          atriumVersion: buildInfo.version,
          children,
        },
      });
      const providerLogins = new ProviderLogins({
        authFile: () => opencodeAuthFile(harnessEnv, harnessEnv.HOME ?? homedir()),
        github: { baseUrl: (options.githubUrl ?? "https://github.com").replace(/\/+$/, ""), clientId: OPENCODE_GITHUB_CLIENT_ID, scope: "read:user" },
        onCredentialsChanged: () =>
          void harnesses.recheckAuth("opencode").catch((error: unknown) => logger.error("re-reading OpenCode's login failed", { error })),
        logger,
      });
      const files = new UploadedFiles({ repository: new FileRepository(store), dir: paths.files });
      const sessions = new SessionService({
        store,
        sessions: new SessionRepository(store),
        conversation: new ConversationRepository(store),
        transcript: new TranscriptRepository(store),
        files,
        queue: new PromptQueueRepository(store),
        events: log,
        harnesses,
        projects,
        worktrees,
        logger,
        serverId: identity.serverId,
        initializeTimeoutMs: options.agentInitializeTimeoutMs ?? DEFAULT_AGENT_INITIALIZE_TIMEOUT_MS,
        idleStopMs: options.agentIdleMs ?? DEFAULT_AGENT_IDLE_MS,
        deltaFlushMs: DELTA_FLUSH_MS,
        cancelGraceMs: options.agentCancelGraceMs ?? DEFAULT_AGENT_CANCEL_GRACE_MS,
        silenceNoticeMs: options.agentSilenceNoticeMs ?? DEFAULT_AGENT_SILENCE_NOTICE_MS,
        writeFailureLimitMs: options.replyWriteFailureLimitMs ?? DEFAULT_REPLY_WRITE_FAILURE_LIMIT_MS,
        children,
      });
      const updates = createServerUpdates({
        options: options.update,
        dataDir: paths.root,
        logger,
        sessions,
        migrationState: () => migration.status().state,
        stopServer: () => started?.stop() ?? Promise.resolve(),
      });
      const routes: Route[] = [
        ...systemRoutes(status),
        ...eventRoutes(log, hub, tokens),
        ...syncRoutes(new SyncService(store, new SyncRepository(store), log)),
        ...projectRoutes(projects, worktrees),
        ...harnessRoutes(harnesses, terminals),
        ...providerLoginRoutes(providerLogins),
        ...sessionRoutes(sessions),
        ...updateRoutes(updates),
        ...fileRoutes(files),
      ];
      const app = createHttpApp({ routes, tokens, logger, version: buildInfo.version, eventPayloads, checkHost, refusals });
      const server = listener.server;
      listener.handOver(serveOn(app, server), tokens);
      sessions.recover();
      updates.reconcileAfterStart();
      updates.startAutomaticChecks();
      const pruning = worktrees
        .pruneOrphans((sessionId) => sessions.exists(sessionId))
        .then((count) => count > 0 && logger.info("pruned worktrees of sessions that no longer exist", { count }))
        .catch((error: unknown) => logger.error("pruning worktrees failed", { error }));
      const firstScan = Bun.sleep(options.firstScanDelayMs ?? DEFAULT_FIRST_SCAN_DELAY_MS)
        .then(() => harnesses.detect())
        .catch((error: unknown) => logger.error("the first harness scan failed", { error }));
      started = new AtriumServer(
        paths,
        url,
        identity,
        adminToken,
        logger,
        store,
        server,
        hub,
        Promise.all([pruning, firstScan]).then(() => undefined),
        options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
        releaseLock,
        [() => updates.stop(), () => sessions.stopAll(), () => children.stopAll(), () => providerLogins.close(), () => harnesses.close()],
      );
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
      this.logger.info("shutting down");
      // Stop accepting first, so no stream opens after the open ones are closed.
      const graceful = this.server.stop(false);
      this.hub?.closeAll();
      // Agents and probes first: start-up work and requests waiting on them then end at once.
      for (const hook of this.stopHooks) await hook();
      await this.backgroundStartup;
      // In-flight requests get a grace period; a peer that never reads must not hold the exit forever.
      const timedOut = await Promise.race([graceful.then(() => false), Bun.sleep(this.shutdownGraceMs).then(() => true)]);
      if (timedOut) {
        this.logger.warn("requests still open after the grace period; closing their connections", { graceMs: this.shutdownGraceMs });
        await this.server.stop(true);
      }
      await this.store.stopBackgroundCheckpoints();
      this.store.close();
      removeRuntimeFile(this.paths.runtime, process.pid);
      this.releaseLock();
      this.logger.info("stopped");
    })();
    return this.stopping;
  }
}

import type { Logger } from "../logging/logger.ts";
import type { UpdateStatus } from "../schemas/update.ts";
import { buildInfo, type BuildInfo } from "../system/build-info.ts";
import { installedPlatformKey } from "./manifest.ts";
import type { UpdateSettings } from "./update-config.ts";
import type { Clock } from "../clock.ts";
import { embeddedUpdatePublicKey } from "./update-key.ts";
import { detectRestartMode, restartIntoNewBuild } from "./restart.ts";
import { selfUpdateCapability } from "./self-update.ts";
import { UpdateChecker } from "./update-checker.ts";
import { UpdateService, type UpdateSessions } from "./update-service.ts";
import { UpdateStateFiles } from "./update-state-files.ts";

/** What tests replace in the server's updates. */
export interface UpdateTuning {
  /** The key manifests must be signed with; this build's embedded one by default. */
  publicKey?: string | null;
  /** The executable an update replaces; this process's own by default. */
  executable?: string;
  /** The build that is running; this one by default. */
  build?: BuildInfo;
  drainTimeoutMs?: number;
}

export interface ServerUpdateDeps {
  /** config.json's update keys with their defaults. */
  settings: UpdateSettings;
  tuning: UpdateTuning | undefined;
  dataDir: string;
  logger: Logger;
  sessions: UpdateSessions;
  migrationState: () => UpdateStatus["migrationState"];
  /** Stops the whole server (port, data-dir lock, database) before the new build starts. */
  stopServer: () => Promise<void>;
  clock: Clock;
}

/** The server's UpdateService with its collaborators. */
export function createServerUpdates(deps: ServerUpdateDeps): UpdateService {
  const { settings } = deps;
  const options = deps.tuning ?? {};
  const build = options.build ?? buildInfo;
  const publicKey = options.publicKey === undefined ? embeddedUpdatePublicKey() : options.publicKey;
  const state = new UpdateStateFiles(deps.dataDir);
  const restartMode = detectRestartMode();
  return new UpdateService({
    checker: new UpdateChecker({ baseUrl: settings.baseUrl, publicKey, installed: build, platformKey: installedPlatformKey() }),
    state,
    sessions: deps.sessions,
    installed: build,
    channel: settings.channel,
    selfUpdate: selfUpdateCapability(build.compiled, publicKey, options.executable ?? process.execPath),
    restartMode,
    restart: (pending) =>
      restartIntoNewBuild({
        mode: pending.restartMode,
        pending,
        dataDir: deps.dataDir,
        // The server's own arguments (`serve --port …`); argv[0] is the runtime, argv[1] the entry point.
        serveArgs: process.argv.slice(2),
        healthTimeoutMs: settings.restartTimeoutSeconds * 1000,
        stopServer: deps.stopServer,
        state,
        logger: deps.logger,
        clock: deps.clock,
        exit: (code) => process.exit(code),
      }),
    migrationState: deps.migrationState,
    logger: deps.logger,
    checkIntervalMs: settings.checkIntervalHours * 3_600_000,
    drainTimeoutMs: options.drainTimeoutMs,
    clock: deps.clock,
  });
}

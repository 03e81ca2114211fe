import type { Logger } from "../logging/logger.ts";
import { buildInfo, type BuildInfo } from "../system/build-info.ts";
import { UpdateStartupGuard } from "./startup-guard.ts";
import { UpdateStateFiles } from "./update-state-files.ts";

// What a start does about an update before it listens, apart from the update service (server-updates.ts),
// whose code the server evaluates only after its socket listens.

/**
 * Tells the pending update that started this build that its start migrated the database, so that a
 * rollback puts the copy from before back (see roll-back.ts).
 */
export function recordUpdateMigration(dataDir: string, migrated: { path: string; backup: string }, build: BuildInfo = buildInfo): void {
  const state = new UpdateStateFiles(dataDir);
  const pending = state.readPending();
  if (pending && pending.targetVersion === build.version && pending.targetBuildNumber === build.buildNumber) {
    state.writePending({ ...pending, migratedDatabase: migrated });
  }
}

/** Guards a start-up that a service manager makes after a supervised update (see startup-guard.ts). */
export function beginUpdateStartupGuard(dataDir: string, logger: Logger, build: BuildInfo = buildInfo): UpdateStartupGuard | undefined {
  return build.compiled ? UpdateStartupGuard.begin(new UpdateStateFiles(dataDir), build, logger) : undefined;
}

import { copyFileSync, existsSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../logging/logger.ts";
import { restorePreviousExecutable } from "./executable-swap.ts";
import { describeRelease } from "./release-order.ts";
import type { PendingUpdate, UpdateStateFiles } from "./update-state-files.ts";

/**
 * Puts the previous build back in place of a new one that did not become healthy, records the apply
 * as failed (with `whatNext` said of the restored build) and forgets the pending update. When the new
 * build had migrated the database, the copy from before the migration goes back too: the previous
 * build cannot open the newer schema.
 */
export function rollBackUpdate(pending: PendingUpdate, state: UpdateStateFiles, logger: Logger, reason: string, whatNext = ""): string {
  const restored = restorePreviousExecutable(pending.executable, pending.previous);
  const from = describeRelease({ version: pending.fromVersion, buildNumber: pending.fromBuildNumber });
  const database = pending.migratedDatabase ? restoreDatabase(pending.migratedDatabase, logger) : "";
  const message = restored ? `${reason}; restored ${from}${database}${whatNext}` : `${reason}; ${pending.previous} was missing, so nothing could be restored`;
  logger.error("the update is rolled back", { message });
  state.writeLastApply({
    progress: 1,
    state: "failed",
    message,
    targetVersion: pending.targetVersion,
    targetBuildNumber: pending.targetBuildNumber,
    at: new Date().toISOString(),
  });
  state.clearPending();
  return message;
}

/**
 * The migrated database (with its WAL, if a killed server left one) is kept beside the backups, never
 * deleted; the copy from before the migration takes its place. Says what it did, for the message.
 */
function restoreDatabase(migrated: { path: string; backup: string }, logger: Logger): string {
  if (!existsSync(migrated.backup)) return ` (the database copy ${migrated.backup} is missing, so the database stays migrated)`;
  const aside = join(dirname(migrated.backup), `${basename(migrated.path, ".db")}-rolled-back-${new Date().toISOString().replace(/[:.]/g, "-")}.db`);
  for (const suffix of ["", "-wal", "-shm"]) {
    if (existsSync(migrated.path + suffix)) renameSync(migrated.path + suffix, aside + suffix);
  }
  copyFileSync(migrated.backup, migrated.path);
  logger.info("the database from before the update's migration is back", { restored: migrated.backup, migratedKeptAt: aside });
  return ` and its database from before the migration (the migrated one is kept as ${aside})`;
}

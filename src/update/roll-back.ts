import type { Logger } from "../logging/logger.ts";
import { restorePreviousExecutable } from "./executable-swap.ts";
import { describeRelease } from "./release-order.ts";
import type { PendingUpdate, UpdateStateFiles } from "./update-state-files.ts";

/**
 * Puts the previous build back in place of a new one that did not become healthy, records the apply
 * as failed (with `whatNext` said of the restored build) and forgets the pending update.
 */
export function rollBackUpdate(pending: PendingUpdate, state: UpdateStateFiles, logger: Logger, reason: string, whatNext = ""): string {
  const restored = restorePreviousExecutable(pending.executable, pending.previous);
  const from = describeRelease({ version: pending.fromVersion, buildNumber: pending.fromBuildNumber });
  const message = restored ? `${reason}; restored ${from}${whatNext}` : `${reason}; ${pending.previous} was missing, so nothing could be restored`;
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

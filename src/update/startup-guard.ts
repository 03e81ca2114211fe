import type { Logger } from "../logging/logger.ts";
import type { ReleaseIdentity } from "./release-order.ts";
import { rollBackUpdate } from "./roll-back.ts";
import type { PendingUpdate, UpdateStateFiles } from "./update-state-files.ts";

/** Start-ups of a new build under a service manager that may fail before it is rolled back. */
export const MAX_SUPERVISED_STARTS = 3;

/**
 * The rollback of an update restarted by a service manager, where no old process stays behind to
 * watch: the new build, starting with a pending marker that names it, counts its attempts and, when
 * it cannot start (or has crashed too often), puts the previous executable back and fails its start,
 * so the service manager starts the previous build. (A re-executed update is watched by the old
 * process instead; see restart.ts.)
 */
export class UpdateStartupGuard {
  private constructor(
    private readonly pending: PendingUpdate,
    private readonly state: UpdateStateFiles,
    private readonly logger: Logger,
  ) {}

  /** The guard for this start-up, or undefined when no supervised update waits on it. Throws after rolling back. */
  static begin(state: UpdateStateFiles, running: ReleaseIdentity, logger: Logger): UpdateStartupGuard | undefined {
    const pending = state.readPending();
    if (!pending || pending.restartMode === "reexec") return undefined;
    if (pending.targetVersion !== running.version || pending.targetBuildNumber !== running.buildNumber) return undefined;
    const guard = new UpdateStartupGuard(pending, state, logger);
    const attempts = pending.attempts + 1;
    if (attempts > MAX_SUPERVISED_STARTS) {
      const message = guard.rollBack(`the new server stopped before becoming healthy ${pending.attempts} times`);
      throw new Error(message);
    }
    state.writePending({ ...pending, attempts });
    return guard;
  }

  /** The server could not start: roll back, so the service manager's next start runs the previous build. */
  startFailed(error: unknown): void {
    this.rollBack(`the new server failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }

  private rollBack(reason: string): string {
    // Read again: this start may have recorded a migration since.
    return rollBackUpdate(this.state.readPending() ?? this.pending, this.state, this.logger, reason, ", which starts next");
  }
}

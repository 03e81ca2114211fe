import { rmSync } from "node:fs";
import { ConflictError } from "../errors.ts";
import type { Logger } from "../logging/logger.ts";
import type { Clock } from "../clock.ts";
import type { ApplyState, LastApply, UpdateStatus } from "../schemas/update.ts";
import type { ReleaseChannel } from "./manifest.ts";
import { describeRelease, type ReleaseIdentity } from "./release-order.ts";
import type { RestartMode } from "./restart.ts";
import type { SelfUpdate } from "./self-update.ts";
import { restorePreviousExecutable, swapInExecutable } from "./executable-swap.ts";
import { stageUpdate } from "./stage-update.ts";
import type { CheckResult, UpdateChecker, UpdateTarget } from "./update-checker.ts";
import type { PendingUpdate, UpdateStateFiles } from "./update-state-files.ts";

/** What the update needs of the sessions (SessionService has it): who is busy, and holding new turns while it swaps. */
export interface UpdateSessions {
  busySessions(): string[];
  holdNewTurns(reason: string): () => void;
  /** The session's title, undefined when there is no such session. */
  titleOf(id: string): string | undefined;
}

export interface UpdateServiceDeps {
  checker: UpdateChecker;
  state: UpdateStateFiles;
  sessions: UpdateSessions;
  installed: ReleaseIdentity;
  /** `updateChannel`: what the automatic checks and an apply without a channel use. */
  channel: ReleaseChannel;
  /** What replacing the executable needs, or why this build cannot. */
  selfUpdate: SelfUpdate | string;
  restartMode: RestartMode;
  /** Stops this server and starts the swapped-in build; does not return when it works. */
  restart(pending: PendingUpdate): Promise<void>;
  migrationState(): UpdateStatus["migrationState"];
  logger: Logger;
  /** Between automatic checks; 0: none (not even at start-up). */
  checkIntervalMs: number;
  /** How long draining waits for a turn that started during the download. */
  drainTimeoutMs?: number;
  /** Times the drain's wait for turns in flight, and stamps the apply's history. */
  clock: Clock;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
const DRAIN_POLL_MS = 100;
const TERMINAL_STATES: ApplyState[] = ["done", "failed"];

/**
 * The server's side of self-update: the status from the last check (GET /v1/update), checks at
 * start-up and every few hours, and applying an update in the background (POST /v1/update/apply):
 * downloading → verifying → draining → swapping → restarting, then `done` (written by the new build)
 * or `failed` (with the reason, and the installed executable unchanged or restored).
 */
export class UpdateService {
  private lastCheck: CheckResult | undefined;
  private lastApply: LastApply | null;
  /** Set from the moment an apply is accepted (its fresh check included) until it fails. */
  private applying: string | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: UpdateServiceDeps) {
    this.lastApply = deps.state.readLastApply();
  }

  status(): UpdateStatus {
    const { deps } = this;
    const check = this.lastCheck;
    const latest = check?.latest;
    return {
      currentVersion: deps.installed.version,
      currentBuildNumber: deps.installed.buildNumber,
      channel: check?.channel ?? deps.channel,
      latestVersion: latest?.version ?? null,
      latestBuildNumber: latest?.buildNumber ?? null,
      latestChannel: latest?.channel ?? null,
      checkedAt: check?.checkedAt ?? null,
      updateAvailable: check?.target !== undefined,
      canSelfUpdate: typeof deps.selfUpdate !== "string",
      notes: latest?.manifest.notes ?? null,
      detail: check?.detail ?? (typeof deps.selfUpdate === "string" ? deps.selfUpdate : null),
      migrationState: deps.migrationState(),
      lastApply: this.lastApply,
    };
  }

  /** A fresh check of `channel` (the configured one by default). */
  async check(channel: ReleaseChannel = this.deps.channel): Promise<UpdateStatus> {
    await this.runCheck(channel);
    return this.status();
  }

  /**
   * Accepts an update and carries it out in the background; the answer shows state `downloading`.
   * Refuses (409) a build that cannot replace itself, a second apply, busy sessions, a failed check,
   * and a server that is already up to date.
   */
  async apply(channel: ReleaseChannel = this.deps.channel): Promise<UpdateStatus> {
    const { selfUpdate } = this.deps;
    if (typeof selfUpdate === "string") throw new ConflictError(`cannot update: ${selfUpdate}`);
    if (this.applying) throw new ConflictError(`an update to ${this.applying} is already being applied`);
    this.refuseWhileBusy();
    this.applying = "the latest release";
    let target: UpdateTarget;
    try {
      const result = await this.runCheck(channel);
      if (!result.target) {
        if (result.detail) throw new ConflictError(`cannot update: ${result.detail}`);
        throw new ConflictError(`Atrium ${describeRelease(this.deps.installed)} is up to date on the ${channel} channel`);
      }
      // The check may have taken a while: a prompt sent meanwhile is in flight now.
      this.refuseWhileBusy();
      target = result.target;
    } catch (error) {
      this.applying = undefined;
      throw error;
    }
    this.applying = describeRelease(target.release);
    this.lastApply = null;
    this.report(target, "downloading", 0, `downloading ${describeRelease(target.release)}`);
    void this.carryOut(target, selfUpdate);
    return this.status();
  }

  /** Checks now (unless turned off) and then every interval. */
  startAutomaticChecks(): void {
    const interval = this.deps.checkIntervalMs;
    if (interval <= 0 || this.timer) return;
    const checkQuietly = () => void this.runCheck(this.deps.channel).catch((error: unknown) => this.deps.logger.error("the update check failed", { error }));
    checkQuietly();
    this.timer = setInterval(checkQuietly, interval);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * At start-up, after the server listens: a pending update that names this build is `done`. One that
   * names another build, or an apply cut off half-way, is `failed` (the rollback usually said so already).
   */
  reconcileAfterStart(): void {
    const { state, installed, logger } = this.deps;
    const pending = state.readPending();
    const last = state.readLastApply();
    const isThisBuild = (release: { targetVersion: string; targetBuildNumber: number }) =>
      release.targetVersion === installed.version && release.targetBuildNumber === installed.buildNumber;
    const record = (lastApply: LastApply) => {
      state.writeLastApply(lastApply);
      logger.info("update finished", { state: lastApply.state, message: lastApply.message });
    };
    const at = this.nowText();
    if (pending && isThisBuild(pending)) {
      const from = describeRelease({ version: pending.fromVersion, buildNumber: pending.fromBuildNumber });
      record({
        progress: 1,
        state: "done",
        message: `updated from ${from} to ${describeRelease(installed)}`,
        targetVersion: pending.targetVersion,
        targetBuildNumber: pending.targetBuildNumber,
        at,
      });
    } else if (pending) {
      if (last?.state !== "failed") {
        const message = `the update to ${describeRelease({ version: pending.targetVersion, buildNumber: pending.targetBuildNumber })} did not complete; ${describeRelease(installed)} is running`;
        record({ progress: 1, state: "failed", message, targetVersion: pending.targetVersion, targetBuildNumber: pending.targetBuildNumber, at });
      }
    } else if (last && !TERMINAL_STATES.includes(last.state)) {
      const message = isThisBuild(last)
        ? `updated to ${describeRelease(installed)}`
        : `the update was interrupted (${last.state}) by a restart; ${describeRelease(installed)} is running`;
      record({ ...last, state: isThisBuild(last) ? "done" : "failed", message, at });
    }
    state.clearPending();
    this.lastApply = state.readLastApply();
  }

  private async runCheck(channel: ReleaseChannel): Promise<CheckResult> {
    const result = await this.deps.checker.check(channel);
    this.lastCheck = result;
    this.deps.logger.info("checked for updates", {
      channel,
      latest: result.latest ? describeRelease(result.latest) : null,
      updateAvailable: result.target !== undefined,
      detail: result.detail,
    });
    return result;
  }

  private refuseWhileBusy(): void {
    const busy = this.deps.sessions.busySessions();
    if (busy.length === 0) return;
    throw new ConflictError(
      `cannot update while a prompt is in flight in ${this.describeSessions(busy).join(", ")}; nothing was interrupted, try again when ${busy.length === 1 ? "it finishes" : "they finish"}`,
    );
  }

  private async carryOut(target: UpdateTarget, selfUpdate: SelfUpdate): Promise<void> {
    const { deps } = this;
    const { executable } = selfUpdate;
    let staged: string | undefined;
    let releaseHold: (() => void) | undefined;
    let pending: PendingUpdate | undefined;
    let progress = 0;
    try {
      staged = await stageUpdate(target, {
        executable,
        publicKey: selfUpdate.publicKey,
        progress: {
          state: (state, message) => this.report(target, state, progress, message),
          downloaded: (fraction) => {
            progress = Math.min(1, fraction);
            if (this.lastApply) this.lastApply = { ...this.lastApply, progress };
          },
        },
      });
      this.report(target, "draining", 1, "new prompts are held while the executable is swapped");
      releaseHold = deps.sessions.holdNewTurns(`Atrium is updating to ${describeRelease(target.release)}`);
      await this.waitUntilIdle();
      pending = {
        fromVersion: deps.installed.version,
        fromBuildNumber: deps.installed.buildNumber,
        targetVersion: target.release.version,
        targetBuildNumber: target.release.buildNumber,
        executable,
        previous: `${executable}.previous`,
        restartMode: deps.restartMode,
        attempts: 0,
        startedAt: this.nowText(),
      };
      this.report(target, "swapping", 1, `replacing ${executable}; the current one is kept as ${pending.previous}`);
      // Written before the swap: whoever starts next must know a new build is on trial.
      deps.state.writePending(pending);
      pending.previous = swapInExecutable(executable, staged);
      staged = undefined;
      const how = deps.restartMode === "reexec" ? "starting the new executable" : `exiting for ${deps.restartMode} to start it`;
      this.report(target, "restarting", 1, `restarting into ${describeRelease(target.release)}: ${how}`);
      await deps.restart(pending);
    } catch (error) {
      if (staged) rmSync(staged, { force: true });
      let message = error instanceof Error ? error.message : String(error);
      if (pending) {
        const restored = restorePreviousExecutable(executable, pending.previous);
        deps.state.clearPending();
        message += restored ? `; ${describeRelease(deps.installed)} was put back` : "";
      }
      releaseHold?.();
      deps.logger.error("the update failed", { target: describeRelease(target.release), message });
      this.report(target, "failed", progress, message);
    } finally {
      this.applying = undefined;
    }
  }

  /** A turn that started while the download ran gets a short while to finish; then the update gives up. */
  private async waitUntilIdle(): Promise<void> {
    const deadline = this.deps.clock.now() + (this.deps.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    while (this.deps.sessions.busySessions().length > 0) {
      if (this.deps.clock.now() > deadline) {
        const busy = this.describeSessions(this.deps.sessions.busySessions());
        throw new Error(
          `a prompt was still in flight in ${busy.join(", ")} after the download; nothing was interrupted and the installed executable is unchanged`,
        );
      }
      await this.deps.clock.sleep(DRAIN_POLL_MS);
    }
  }

  private report(target: UpdateTarget, state: ApplyState, progress: number, message: string): void {
    this.lastApply = {
      progress,
      state,
      message,
      targetVersion: target.release.version,
      targetBuildNumber: target.release.buildNumber,
      at: this.nowText(),
    };
    try {
      this.deps.state.writeLastApply(this.lastApply);
    } catch (error) {
      this.deps.logger.warn("could not record the update's state", { error });
    }
  }

  private nowText(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  /** Sessions as a message names them: their title and id. */
  private describeSessions(ids: string[]): string[] {
    return ids.map((id) => {
      const title = this.deps.sessions.titleOf(id);
      return title ? `"${title}" (${id})` : id;
    });
  }
}

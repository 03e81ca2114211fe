import type { Static } from "@sinclair/typebox";
import type { MigrationStatus } from "../schemas/system.ts";
import type { MigrationReport, MigrationStepProgress } from "../store/migrations.ts";

type Status = Static<typeof MigrationStatus>;

/** What health says of the database's migrations: idle, running with its progress, or failed and why. */
export class MigrationProgress {
  private current: Status;

  constructor(schemaVersion: number, targetVersion: number) {
    this.current = { state: "idle", schemaVersion, targetVersion };
  }

  status(): Status {
    return this.current;
  }

  /** Whether the database is not at the version this release needs (newer counts: it is refused). */
  get pending(): boolean {
    return this.current.schemaVersion !== this.current.targetVersion;
  }

  /** Running from the moment the server decides to migrate, before the worker reports its first step. */
  started(): void {
    const { schemaVersion, targetVersion } = this.current;
    this.current = {
      state: "running",
      schemaVersion,
      targetVersion,
      progress: 0,
      detail: `starting the migration from schema ${schemaVersion} to ${targetVersion}`,
    };
  }

  step(progress: MigrationStepProgress): void {
    const { schemaVersion, targetVersion } = this.current;
    const detail = progress.current
      ? `${progress.current}: step ${progress.done + 1} of ${progress.total}, to schema ${targetVersion}`
      : `finishing the migration to schema ${targetVersion}`;
    this.current = { state: "running", schemaVersion, targetVersion, progress: progress.total === 0 ? 1 : progress.done / progress.total, detail };
  }

  finished(report: MigrationReport): void {
    const detail = report.backupPath ? `migrated from schema ${report.fromVersion}; the database before it is in ${report.backupPath}` : undefined;
    this.current = { state: "idle", schemaVersion: report.toVersion, targetVersion: this.current.targetVersion, ...(detail ? { detail } : {}) };
  }

  failed(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    const { schemaVersion, targetVersion } = this.current;
    this.current = {
      state: "failed",
      schemaVersion,
      targetVersion,
      detail: `the migration to schema ${targetVersion} failed, so the database is still at schema ${schemaVersion}: ${reason}`,
    };
  }

  /** Why a request other than health cannot be served now. */
  unavailableReason(): string {
    const { state, detail, targetVersion } = this.current;
    if (state === "failed") return `the server cannot serve this: ${detail}`;
    return `the database is being migrated to schema ${targetVersion} (${detail}); try again once GET /v1/health says migration.state is idle`;
  }
}

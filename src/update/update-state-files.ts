import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomically } from "../system/json-file.ts";
import { Value } from "@sinclair/typebox/value";
import { Type, type Static } from "@sinclair/typebox";
import { LastApply } from "../schemas/update.ts";

/**
 * What an update keeps on disk in the data dir, because it has to outlive the process that wrote it:
 * `update.json` holds the last apply (so GET /v1/update after the restart says `done` or why it
 * `failed`), and `update-pending.json` marks a swap whose new server has not yet proven healthy.
 * Files rather than the database: the watchdog that rolls back runs after the store is closed, and
 * `atrium update` without a server writes them too.
 */

export const PendingUpdate = Type.Object({
  fromVersion: Type.String(),
  fromBuildNumber: Type.Integer(),
  targetVersion: Type.String(),
  targetBuildNumber: Type.Integer(),
  /** The executable that was replaced, and where its previous content is kept. */
  executable: Type.String(),
  previous: Type.String(),
  /** How the new build is started: by a service manager (exit 75) or by the old process re-executing. */
  restartMode: Type.Union([Type.Literal("systemd"), Type.Literal("launchd"), Type.Literal("reexec")]),
  /** Start-ups of the new build so far (service-manager restarts): too many without success roll back. */
  attempts: Type.Integer({ minimum: 0 }),
  startedAt: Type.String(),
  /**
   * Set by the new build when it migrated the database before serving: the copy taken before, which a
   * rollback puts back so the previous build can open its data (the new build wrote nothing else yet).
   */
  migratedDatabase: Type.Optional(Type.Object({ path: Type.String(), backup: Type.String() })),
});
export type PendingUpdate = Static<typeof PendingUpdate>;

const StateDocument = Type.Object({ lastApply: Type.Union([LastApply, Type.Null()]) });

function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as unknown;
  } catch {
    return undefined; // half-written by a crash: as good as absent
  }
}

export class UpdateStateFiles {
  readonly statePath: string;
  readonly pendingPath: string;

  constructor(dataDir: string) {
    this.statePath = join(dataDir, "update.json");
    this.pendingPath = join(dataDir, "update-pending.json");
  }

  readLastApply(): LastApply | null {
    const document = readJson(this.statePath);
    return Value.Check(StateDocument, document) ? document.lastApply : null;
  }

  writeLastApply(lastApply: LastApply): void {
    writeJsonAtomically(this.statePath, { lastApply });
  }

  readPending(): PendingUpdate | undefined {
    const document = readJson(this.pendingPath);
    return Value.Check(PendingUpdate, document) ? document : undefined;
  }

  writePending(pending: PendingUpdate): void {
    writeJsonAtomically(this.pendingPath, pending);
  }

  clearPending(): void {
    rmSync(this.pendingPath, { force: true });
  }
}

import { hostname } from "node:os";
import type { Store } from "../store/database.ts";
import type { BuildInfo } from "./build-info.ts";
import type { ServerIdentity } from "./identity.ts";
import type { Health, ServerInfo } from "../schemas/system.ts";
import type { Static } from "@sinclair/typebox";
import type { MigrationStatus } from "../schemas/system.ts";

export interface SystemStatusDeps {
  store: Store;
  identity: ServerIdentity;
  build: BuildInfo;
  startedAt: Date;
  bindAddress: { host: string; port: number };
  migration: () => Static<typeof MigrationStatus>;
  features: string[];
  now?: () => Date;
}

const DATABASE_PROBE_MS = 1000;

/** Answers health and identity questions about the running server. */
export class SystemStatus {
  private readonly journalMode: string;
  // Health is polled often; what cannot change is worked out once.
  private readonly startedAtText: string;
  private readonly release: Health["release"];
  private lastProbe: { atMs: number; state: Health["database"] } | undefined;

  constructor(private readonly deps: SystemStatusDeps) {
    this.journalMode = deps.store.journalMode();
    this.startedAtText = deps.startedAt.toISOString();
    this.release = { version: deps.build.version, buildNumber: deps.build.buildNumber, channel: deps.build.channel };
  }

  health(): Health {
    const { deps } = this;
    const nowMs = deps.now?.().getTime() ?? Date.now();
    const migration = deps.migration();
    const database = this.databaseState(nowMs, migration.schemaVersion);
    return {
      status: database.state === "ok" && migration.state !== "failed" ? "ok" : "degraded",
      release: this.release,
      database,
      process: {
        pid: process.pid,
        startedAt: this.startedAtText,
        uptimeSeconds: Math.max(0, (nowMs - deps.startedAt.getTime()) / 1000),
      },
      migration,
    };
  }

  /**
   * Asks SQLite whether it answers at most once per DATABASE_PROBE_MS: monitors poll health often, and
   * a query per poll was a tenth of the cost of serving it.
   */
  private databaseState(nowMs: number, schemaVersion: number): Health["database"] {
    if (this.lastProbe && nowMs - this.lastProbe.atMs < DATABASE_PROBE_MS) return this.lastProbe.state;
    let state: Health["database"];
    try {
      this.deps.store.db.query("SELECT 1").get();
      state = { state: "ok", schemaVersion, journalMode: this.journalMode };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      state = { state: "error", schemaVersion, journalMode: this.journalMode, detail };
    }
    this.lastProbe = { atMs: nowMs, state };
    return state;
  }

  info(): ServerInfo {
    const { deps } = this;
    return {
      serverId: deps.identity.serverId,
      machineId: deps.identity.machineId,
      kind: "standalone",
      version: deps.build.version,
      platform: process.platform,
      architecture: process.arch,
      hostname: hostname(),
      bindAddress: deps.bindAddress,
      features: deps.features,
    };
  }
}

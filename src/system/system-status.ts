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

/** Answers health and identity questions about the running server. */
export class SystemStatus {
  private readonly journalMode: string;

  constructor(private readonly deps: SystemStatusDeps) {
    this.journalMode = deps.store.journalMode();
  }

  health(): Health {
    const { deps } = this;
    const now = deps.now?.() ?? new Date();
    const migration = deps.migration();
    let database: Health["database"];
    try {
      deps.store.db.query("SELECT 1").get();
      database = { state: "ok", schemaVersion: migration.schemaVersion, journalMode: this.journalMode };
    } catch (error) {
      database = {
        state: "error",
        schemaVersion: migration.schemaVersion,
        journalMode: this.journalMode,
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    return {
      status: database.state === "ok" && migration.state !== "failed" ? "ok" : "degraded",
      release: { version: deps.build.version, buildNumber: deps.build.buildNumber, channel: deps.build.channel },
      database,
      process: {
        pid: process.pid,
        startedAt: deps.startedAt.toISOString(),
        uptimeSeconds: Math.max(0, (now.getTime() - deps.startedAt.getTime()) / 1000),
      },
      migration,
    };
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

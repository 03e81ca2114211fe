import { hostname } from "node:os";
import type { Store } from "../store/database.ts";
import type { BuildInfo } from "./build-info.ts";
import type { ServerIdentity } from "./identity.ts";
import type { Health, ServerInfo } from "../schemas/system.ts";
import type { Static } from "@sinclair/typebox";
import type { MigrationStatus } from "../schemas/system.ts";
import type { EventLog } from "../events/event-log.ts";
import type { EventCompactor, RetentionPolicy } from "../events/event-compactor.ts";

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

/** What health tells of the event log, attached once the server is built. */
export interface EventLogStatus {
  log: Pick<EventLog, "cursor" | "horizon">;
  compactor: Pick<EventCompactor, "failure">;
  policy: RetentionPolicy;
}

type DatabaseAnswer = Pick<Health["database"], "state" | "detail">;

/** Answers health and identity questions about the running server. */
export class SystemStatus {
  private readonly journalMode: string;
  // Health is polled often; what cannot change is worked out once.
  private readonly startedAtText: string;
  private readonly release: Health["release"];
  private lastProbe: { atMs: number; answer: DatabaseAnswer } | undefined;
  private eventLog: EventLogStatus | undefined;

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
      // A migrating server answers only health, so it is not ok until the migration is done.
      status: database.state === "ok" && migration.state === "idle" ? "ok" : "degraded",
      release: this.release,
      database,
      process: {
        pid: process.pid,
        startedAt: this.startedAtText,
        uptimeSeconds: Math.max(0, (nowMs - deps.startedAt.getTime()) / 1000),
      },
      migration,
      ...(this.eventLog ? { events: this.eventLogHealth(this.eventLog) } : {}),
    };
  }

  attachEventLog(eventLog: EventLogStatus): void {
    this.eventLog = eventLog;
  }

  private eventLogHealth({ log, compactor, policy }: EventLogStatus): NonNullable<Health["events"]> {
    const failure = compactor.failure;
    return {
      cursor: log.cursor(),
      horizon: log.horizon(),
      retentionDays: policy.retentionMs / 86_400_000,
      maxMB: policy.maxBytes / (1024 * 1024),
      ...(failure ? { compactionError: failure } : {}),
    };
  }

  /**
   * Asks SQLite whether it answers at most once per DATABASE_PROBE_MS: monitors poll health often, and
   * a query per poll was a tenth of the cost of serving it. The schema version is always the current one.
   */
  private databaseState(nowMs: number, schemaVersion: number): Health["database"] {
    if (!this.lastProbe || nowMs - this.lastProbe.atMs >= DATABASE_PROBE_MS) {
      let answer: DatabaseAnswer;
      try {
        this.deps.store.ping();
        answer = { state: "ok" };
      } catch (error) {
        answer = { state: "error", detail: error instanceof Error ? error.message : String(error) };
      }
      this.lastProbe = { atMs: nowMs, answer };
    }
    const failure = this.deps.store.writeFailure;
    if (this.lastProbe.answer.state === "ok" && failure) {
      // Reads still work; writes do not. Said until a write succeeds again.
      return { state: "write_failing", detail: `writes have failed since ${failure.since}: ${failure.message}`, schemaVersion, journalMode: this.journalMode };
    }
    return { ...this.lastProbe.answer, schemaVersion, journalMode: this.journalMode };
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

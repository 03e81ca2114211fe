import { Type, type Static } from "@sinclair/typebox";
import { Timestamp } from "./common.ts";

export const MigrationStatus = Type.Object(
  {
    state: Type.Union([Type.Literal("idle"), Type.Literal("running"), Type.Literal("failed")]),
    schemaVersion: Type.Integer({ description: "The version the database is at." }),
    targetVersion: Type.Integer({ description: "The version this release needs." }),
    progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "Present while a migration runs." })),
    detail: Type.Optional(Type.String()),
  },
  { $id: "MigrationStatus" },
);

export const Health = Type.Object(
  {
    status: Type.Union([Type.Literal("ok"), Type.Literal("degraded")]),
    release: Type.Object({
      version: Type.String(),
      buildNumber: Type.Integer(),
      channel: Type.String({ description: "`stable`, `alpha`, or `dev` when running from source." }),
    }),
    database: Type.Object({
      state: Type.Union([Type.Literal("ok"), Type.Literal("error"), Type.Literal("write_failing")], {
        description: "`error`: the database does not answer; `write_failing`: it answers reads, but writes fail (locked, disk full), as `detail` says.",
      }),
      schemaVersion: Type.Integer(),
      journalMode: Type.String(),
      detail: Type.Optional(Type.String()),
    }),
    process: Type.Object({
      pid: Type.Integer(),
      startedAt: Timestamp,
      uptimeSeconds: Type.Number(),
    }),
    migration: MigrationStatus,
    events: Type.Optional(
      Type.Object(
        {
          cursor: Type.Integer({ description: "The newest event's globalEventId." }),
          horizon: Type.Integer({
            description: "Events at or below this globalEventId may have been compacted away: resuming from behind it (other than 0) is refused 410.",
          }),
          retentionDays: Type.Number(),
          maxMB: Type.Number(),
          compactionError: Type.Optional(Type.String({ description: "Why the last compaction failed (the database locked or full), until one succeeds." })),
        },
        { description: "The event log, once the server is built (absent while a migration runs)." },
      ),
    ),
  },
  { $id: "Health" },
);
export type Health = Static<typeof Health>;

export const ServerInfo = Type.Object(
  {
    serverId: Type.String({ description: "Identifies this server's data directory; stable across restarts." }),
    machineId: Type.String({ description: "Identifies the machine; stable across data directories." }),
    kind: Type.Literal("standalone", { description: "A server running on the developer's own machine." }),
    version: Type.String(),
    platform: Type.String({ description: "`linux`, `darwin`, …" }),
    architecture: Type.String({ description: "`x64`, `arm64`, …" }),
    hostname: Type.String(),
    bindAddress: Type.Object({ host: Type.String(), port: Type.Integer() }),
    features: Type.Array(Type.String(), { description: "Markers of the capabilities this server has." }),
  },
  { $id: "ServerInfo" },
);
export type ServerInfo = Static<typeof ServerInfo>;

import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";

export const UpdateChannel = Type.Union([Type.Literal("stable"), Type.Literal("alpha")], {
  description: "`stable` (the default) or `alpha`, which considers both channels and takes the newer build.",
});
export type UpdateChannel = Static<typeof UpdateChannel>;

export const APPLY_STATES = ["downloading", "verifying", "draining", "swapping", "restarting", "failed", "done"] as const;
export type ApplyState = (typeof APPLY_STATES)[number];

export const ApplyStateSchema = Type.Union(
  APPLY_STATES.map((state) => Type.Literal(state)),
  {
    description:
      "downloading → verifying (size, sha256, signature, the new executable's --version) → draining (new turns held) → " +
      "swapping → restarting → done; `failed` from any of them (message says why and what was kept).",
  },
);

export const LastApply = Type.Object(
  {
    progress: Type.Number({ minimum: 0, maximum: 1, description: "Fraction of the executable downloaded; 1 once downloaded." }),
    state: ApplyStateSchema,
    message: Type.String({ description: "What is happening, or why it failed." }),
    targetVersion: Type.String(),
    targetBuildNumber: Type.Integer(),
    at: Timestamp,
  },
  { $id: "UpdateApply" },
);
export type LastApply = Static<typeof LastApply>;

export const UpdateStatus = Type.Object(
  {
    currentVersion: Type.String(),
    currentBuildNumber: Type.Integer(),
    channel: UpdateChannel,
    latestVersion: Nullable(Type.String({ description: "Null until a check has read a manifest." })),
    latestBuildNumber: Nullable(Type.Integer()),
    latestChannel: Nullable(UpdateChannel),
    checkedAt: Nullable(Timestamp),
    updateAvailable: Type.Boolean(),
    canSelfUpdate: Type.Boolean({ description: "False for a build that cannot replace itself (from source, no update key)." }),
    notes: Nullable(Type.String({ description: "Release notes of the latest release." })),
    detail: Nullable(Type.String({ description: "Why no update is offered when that is not simply `up to date`: a failed check, no key, …" })),
    migrationState: Type.Union([Type.Literal("idle"), Type.Literal("running"), Type.Literal("failed")]),
    lastApply: Nullable(LastApply),
  },
  { $id: "UpdateStatus" },
);
export type UpdateStatus = Static<typeof UpdateStatus>;

export const UpdateRequestBody = Type.Object({
  channel: Type.Optional(UpdateChannel),
});
export type UpdateRequestBody = Static<typeof UpdateRequestBody>;

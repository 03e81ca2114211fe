/** A session's move to a paired machine: the client's request, and the calls between the two machines. */
import { Type, type Static } from "@sinclair/typebox";
import { Nullable } from "./common.ts";
import { MachineId } from "./machines.ts";
import { ConversationItem, Goal, QueuedPrompt } from "./sessions.ts";
import { ThoughtDetails, ToolCallDetails } from "./transcript.ts";

export const MoveSessionBody = Type.Object({ machineId: MachineId });

const WorkingTreePack = Type.Object({
  branch: Nullable(Type.String()),
  head: Type.String({ minLength: 40, maxLength: 64, pattern: "^[0-9a-f]{40,64}$" }),
  bundle: Nullable(Type.String({ description: "`git bundle` of the commits no remote-tracking branch holds, base64." })),
  patch: Type.String({ description: "`git diff --binary` from HEAD to the working tree, untracked files included." }),
});

/** Everything a session is, as its source sends it: the target keeps it staged until the source has decided. */
export const MovePackage = Type.Object({
  moveId: Type.String({ minLength: 1, maxLength: 100 }),
  sourceSessionId: Type.String({ minLength: 1 }),
  /** The id the session takes on the target, chosen by the source so that a repeated call is the same move. */
  sessionId: Type.String({ minLength: 1, maxLength: 100, pattern: "^ses_[A-Za-z0-9_-]+$" }),
  project: Type.Object({ id: Type.String(), name: Type.String(), repoKey: Nullable(Type.String()) }),
  session: Type.Object({
    harnessId: Type.String(),
    title: Type.String(),
    titleSource: Type.Union([Type.Literal("given"), Type.Literal("agent"), Type.Literal("prompt"), Type.Literal("default")]),
    configSelections: Type.Record(Type.String(), Type.String()),
    labels: Type.Record(Type.String(), Type.String()),
    goal: Nullable(Goal),
    queuePaused: Type.Boolean(),
    createdAt: Type.String(),
  }),
  items: Type.Array(ConversationItem),
  details: Type.Array(Type.Object({ itemId: Type.String(), key: Type.String(), payload: Type.Union([ToolCallDetails, ThoughtDetails]) })),
  queue: Type.Array(QueuedPrompt),
  /** The working tree; null when the session's folder is not a git repository with a commit. */
  tree: Nullable(WorkingTreePack),
});
export type MovePackage = Static<typeof MovePackage>;
export type WorkingTreePackBody = Static<typeof WorkingTreePack>;

export const MoveState = Type.Object(
  {
    state: Type.Union(
      [
        Type.Literal("copying"),
        Type.Literal("committed"),
        Type.Literal("done"),
        Type.Literal("aborted"),
        Type.Literal("staged"),
        Type.Literal("live"),
        Type.Literal("dropped"),
        Type.Literal("unknown"),
      ],
      { description: "This side's record of the move; `unknown` when it has none." },
    ),
  },
  { $id: "MoveState" },
);
export type MoveState = Static<typeof MoveState>;

export const MoveParams = Type.Object({ moveId: Type.String({ minLength: 1, maxLength: 100 }) });

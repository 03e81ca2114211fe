/** What the sessions routes take: their bodies and query strings (the answers are in sessions.ts). */
import { Type } from "@sinclair/typebox";
import { Nullable, PageQuery } from "./common.ts";
import { SidebarState } from "./sessions.ts";

const Labels = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 1000 }), {
  description: 'Free-form key/value labels, e.g. {"ticket": "ABC-12"}.',
});

export const CreateSessionBody = Type.Object({
  projectId: Type.String({ minLength: 1 }),
  harnessId: Type.String({ minLength: 1 }),
  harnessAccountId: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  runLocation: Type.Optional(
    Nullable(Type.Union([Type.Literal("projectDirectory"), Type.Literal("worktree")], { description: "Overrides the project's defaultRunLocation." })),
  ),
  configSelections: Type.Optional(Nullable(Type.Record(Type.String(), Type.String(), { description: "configId → value, set when the agent starts." }))),
  parentSessionId: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
  labels: Type.Optional(Nullable(Labels)),
});

export const ForkSessionBody = Type.Object({
  itemId: Type.Optional(
    Nullable(
      Type.String({ minLength: 1, description: "The last conversation item the fork keeps (a prompt or a reply); the whole conversation when absent." }),
    ),
  ),
  harnessId: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        description: "Another agent continues the conversation (it is handed over with the first prompt); the source's when absent.",
      }),
    ),
  ),
  runLocation: Type.Optional(
    Nullable(
      Type.Union([Type.Literal("projectDirectory"), Type.Literal("worktree")], {
        description:
          "Absent: the source's folder (its worktree, shared). `projectDirectory`: the project's folder. `worktree`: a new worktree on a new branch from the commit the source's folder is on (its uncommitted changes stay behind).",
      }),
    ),
  ),
});

export const UpdateSessionBody = Type.Object({
  title: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  labels: Type.Optional(Nullable(Labels)),
  lastSeenAttentionSequence: Type.Optional(Type.Integer({ minimum: 0, description: "Marks attention up to here as seen." })),
  archived: Type.Optional(Type.Boolean({ description: "true archives the session (archivedAt is set), false restores it." })),
});

export const SessionListQuery = Type.Object({
  projectId: Type.Optional(Type.String({ minLength: 1 })),
  harnessId: Type.Optional(Type.String({ minLength: 1 })),
  state: Type.Optional(SidebarState),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Sessions whose title or project name holds this text (ignoring the case of ASCII letters), then those whose " +
        "conversation holds all its words (any case and accents; the last word also as a prefix), best match first, each " +
        "with `match`. Not FTS syntax: quotes, operators and `*` are ordinary characters.",
    }),
  ),
  archived: Type.Optional(Type.Boolean({ description: "true: only archived sessions; without it (or false) archived sessions are left out." })),
  ...PageQuery.properties,
});

export const SessionDetailQuery = Type.Object({
  before: Type.Optional(Type.String({ pattern: "^[0-9]{1,15}$", description: "nextBefore of an earlier page." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Conversation items per page; 50 by default." })),
});

export const DeleteSessionQuery = Type.Object({
  keepWorktree: Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")])),
});

export const SendPromptBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 200_000 }),
  attachments: Type.Optional(
    Nullable(Type.Array(Type.Object({ fileId: Type.String({ minLength: 1 }) }), { maxItems: 20, description: "Files uploaded with POST /v1/files." })),
  ),
  mentions: Type.Optional(
    Nullable(
      Type.Array(Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096 }) }), {
        maxItems: 20,
        description:
          "Files of the session's folder, relative to it (as `GET /v1/projects/{id}/files/search?sessionId=` finds them): `..`, absolute paths and NUL are 400, a path leading outside the folder through a link is 403, a missing file 404.",
      }),
    ),
  ),
  clientId: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 200, description: "The client's own id: sending the same one again returns the same prompt." })),
  ),
});

export const EditPromptBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: 200_000 }) });

export const AnswerQuestionBody = Type.Object({
  answers: Type.Record(
    Type.String(),
    Type.Object({
      optionIds: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
      text: Type.Optional(Type.String({ maxLength: 100_000, description: "Free text where the question allowsOther; a secret is never stored." })),
    }),
    { description: "Per question id of the pending question." },
  ),
});

export const SetConfigBody = Type.Object({
  configId: Type.String({ minLength: 1 }),
  value: Type.String(),
  clientActionId: Type.Optional(Nullable(Type.String())),
});

export const SetGoalBody = Type.Object({
  objective: Type.String({ minLength: 1, maxLength: 10_000 }),
  tokenBudget: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: "Tokens the goal may use; none (null) counts without a limit." }))),
});

export const SessionEventsQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, description: "A per-session event id; only later events are returned." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "500 by default." })),
});

import { Type, type Static } from "@sinclair/typebox";
import { Project } from "../schemas/projects.ts";
import { Harness } from "../schemas/harnesses.ts";
import {
  BackgroundTask,
  ConfigOption,
  ConversationItem,
  Goal,
  PendingQuestion,
  QueuedPrompt,
  Session,
  SessionPlan,
  SessionUsage,
} from "../schemas/sessions.ts";

const ProjectPayload = Type.Object({ project: Project });

/**
 * Every event kind with the schema of its payload. The OpenAPI document lists them, and the event log
 * only accepts kinds named here.
 */
export const eventPayloads = {
  "harness.updated": Type.Object({ harness: Harness }),
  "project.created": ProjectPayload,
  "project.updated": ProjectPayload,
  "project.deleted": ProjectPayload,
  /** Subject `clone:<projectId>`. */
  "project.clone.progress": Type.Object({
    projectId: Type.String({ description: "The id the project will have once the clone is done." }),
    url: Type.String(),
    phase: Type.String({ description: "git's phase, e.g. `Receiving objects`." }),
    percent: Type.Integer({ minimum: 0, maximum: 100 }),
  }),
  /** Subject: the terminal id. A batch of lines a command the server runs (an install) wrote. */
  "terminal.output": Type.Object({
    terminalId: Type.String(),
    subjectId: Type.String({ description: "What the command is for, e.g. the harness id." }),
    text: Type.String(),
  }),
  // Session events: subject and sessionId are the session id, so each session's `id` sequence has no gaps.
  "session.created": Type.Object({ session: Session }),
  "session.updated": Type.Object({ session: Session }),
  "session.deleted": Type.Object({ sessionId: Type.String() }),
  /** A conversation item began: the user's prompt, or the agent's reply (isGenerating). */
  "session.message.created": Type.Object({ item: ConversationItem }),
  /**
   * Streamed text to append to an item; chunks that arrive close together are sent as one delta (at
   * most 128 Ki characters). The item's stored text is these deltas joined.
   */
  "session.message.delta": Type.Object({ itemId: Type.String(), text: Type.String() }),
  /** The item ended. Its text is left out (`textOmitted`) past 64 KiB: the deltas carry it, and so does the session detail. */
  "session.message.completed": Type.Object({
    item: ConversationItem,
    textOmitted: Type.Boolean({ description: "`item.text` is empty because the text is longer than 64 KiB." }),
  }),
  "session.prompt.queued": Type.Object({ prompt: QueuedPrompt }),
  "session.prompt.updated": Type.Object({ prompt: QueuedPrompt }),
  "session.prompt.removed": Type.Object({ promptId: Type.String() }),
  "session.prompt.started": Type.Object({ promptId: Type.String(), itemId: Type.String() }),
  /** The pending question, or null once it is answered or withdrawn. */
  "session.question": Type.Object({ question: Type.Union([PendingQuestion, Type.Null()]) }),
  "session.plan": Type.Object({ plan: SessionPlan }),
  "session.usage": Type.Object({ usage: SessionUsage }),
  "session.goal": Type.Object({ goal: Type.Union([Goal, Type.Null()]) }),
  /** An entry of a reply's details (a thought, a tool call) was added or changed: read it at endpoint 12. */
  "session.transcript": Type.Object({ itemId: Type.String(), key: Type.String(), position: Type.Integer(), revision: Type.Integer() }),
  /** The session's background tasks (commands the agent runs) changed: one started, ended or was released. */
  "session.tasks": Type.Object({ backgroundTasks: Type.Array(BackgroundTask) }),
  "session.config": Type.Object({ configOptions: Type.Array(ConfigOption), configSelections: Type.Record(Type.String(), Type.String()) }),
  "sync.changed": Type.Object({
    namespace: Type.String(),
    keys: Type.Array(Type.String(), { description: "The keys whose entry changed." }),
  }),
};

export type EventKind = keyof typeof eventPayloads;
export type EventPayload<K extends EventKind> = Static<(typeof eventPayloads)[K]>;

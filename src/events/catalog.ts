import { Type, type Static } from "@sinclair/typebox";
import { Project } from "../schemas/projects.ts";
import { Harness } from "../schemas/harnesses.ts";

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
  "sync.changed": Type.Object({
    namespace: Type.String(),
    keys: Type.Array(Type.String(), { description: "The keys whose entry changed." }),
  }),
};

export type EventKind = keyof typeof eventPayloads;
export type EventPayload<K extends EventKind> = Static<(typeof eventPayloads)[K]>;

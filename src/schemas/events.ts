import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { EventCursor, Timestamp } from "./common.ts";

/** The fields every event record has; `payload` is narrowed per kind in the catalog. */
export function eventRecordSchema<P extends TSchema>(payload: P, options: { $id?: string; kind?: string } = {}) {
  return Type.Object(
    {
      id: Type.Integer({ description: "Per-session sequence for session events; equal to globalEventId otherwise." }),
      globalEventId: Type.Integer({ description: "Server-wide sequence; the SSE `id:`." }),
      subjectRevision: Type.Integer({ description: "How many events this subject has had, this one included." }),
      serverId: Type.String(),
      kind: options.kind ? Type.Literal(options.kind) : Type.String({ description: "`noun.verb`, e.g. `project.created`." }),
      subjectId: Type.String(),
      createdAt: Timestamp,
      payload,
    },
    options.$id ? { $id: options.$id } : {},
  );
}

export const EventRecord = eventRecordSchema(Type.Unknown(), { $id: "EventRecord" });
export type EventRecord = Static<typeof EventRecord>;

export const CursorResponse = Type.Object(
  {
    cursor: EventCursor,
    horizon: Type.Integer({
      description: "Events at or below this globalEventId may have been compacted away; resuming from behind it (other than 0) is refused 410.",
    }),
  },
  { $id: "EventCursor" },
);

/** The extra error of a route that resumes the event log from a cursor. */
export const BEHIND_HORIZON = {
  "410":
    "The cursor is behind the event log's retention horizon: what followed it was compacted away. Re-read the state, then resume from the cursor it carries.",
};

export const ADDRESSED_TO_SUBJECT = "x-addressed-to-subject";
/**
 * The annotation of a kind that is for its subject alone (`Type.Object({…}, addressedToSubject)`): only
 * the event stream that client opened with its clientId gets such events.
 */
export const addressedToSubject = { [ADDRESSED_TO_SUBJECT]: true };

import { Type } from "@sinclair/typebox";
import "./formats.ts";

export const ErrorBody = Type.Object(
  { error: Type.String({ description: "A sentence naming what was wrong with the request." }) },
  { $id: "Error", additionalProperties: false },
);

export const Timestamp = Type.String({ format: "date-time", description: "RFC 3339 time in UTC." });

export const EventCursor = Type.Integer({ minimum: 0, description: "A globalEventId; 0 is before the first event." });

/** A value or null: the interface says null, never leaves a field out. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

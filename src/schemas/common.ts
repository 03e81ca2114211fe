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

/** A list's search: the records whose name (or title) holds the text, read in pages like the whole list. */
export const SearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "Only records whose name holds this text (a session's title or its project's name), ignoring the case of ASCII letters; paged like the whole list.",
    }),
  ),
});

/** `limit` and `cursor` of a list that grows with use; the next page's URL is in the `Link` header. */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Items per page; 50 by default." })),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: 512, description: 'Where to go on: from the `Link: <…>; rel="next"` header of the previous page.' }),
  ),
});

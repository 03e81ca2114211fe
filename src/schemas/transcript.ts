import { Type, type Static } from "@sinclair/typebox";
import { EventCursor, Nullable, Timestamp } from "./common.ts";

/** A reply's details (endpoint 12): the thoughts and tool calls that came with its text, in order. */

const TextOffset = Type.Optional(
  Type.Integer({
    minimum: 0,
    description:
      "Where in the reply's text this happened (characters before it), so a client can show text, calls and thoughts in the order they came; absent on entries recorded before offsets were kept.",
  }),
);

/** What a tool call shows, as ACP carries it: content blocks, diffs of the files it writes, the terminal it runs in. */
export const ToolCallContent = Type.Union(
  [
    Type.Object({ type: Type.Literal("content"), content: Type.Unknown({ description: "An ACP content block (text, image, resource…)." }) }),
    Type.Object({
      type: Type.Literal("diff"),
      path: Type.String(),
      oldText: Type.Optional(Nullable(Type.String({ description: "null or absent: a new file." }))),
      newText: Type.String(),
    }),
    Type.Object({ type: Type.Literal("terminal"), terminalId: Type.String() }),
  ],
  { $id: "ToolCallContent" },
);

/** ACP's kind of a permission option, on a permission question's options and in the answer recorded on its call. */
export const PermissionOptionKind = Type.Union(
  [Type.Literal("allow_once"), Type.Literal("allow_always"), Type.Literal("reject_once"), Type.Literal("reject_always")],
  { description: "ACP's kind of a permission option: what choosing it does." },
);
export type PermissionOptionKind = Static<typeof PermissionOptionKind>;

/** How the user answered the permission question about a call. */
export const PermissionAnswer = Type.Object(
  {
    optionId: Nullable(Type.String({ description: "The option chosen; null unless `outcome` is `selected`." })),
    kind: Nullable(PermissionOptionKind),
    outcome: Type.Union([Type.Literal("selected"), Type.Literal("dismissed"), Type.Literal("cancelled")], {
      description: "`dismissed`: the user dismissed the question; `cancelled`: it was withdrawn (the turn cancelled, the agent stopped, another question).",
    }),
    answeredAt: Timestamp,
  },
  { $id: "PermissionAnswer" },
);
export type PermissionAnswer = Static<typeof PermissionAnswer>;

/** A tool call as a reply's details keep it: the agent's fields, its later updates merged in. */
export const ToolCallDetails = Type.Object(
  {
    type: Type.Literal("tool_call"),
    toolCallId: Type.String(),
    title: Type.String(),
    kind: Nullable(Type.String({ description: "ACP's kind: read, edit, delete, move, search, execute, think, fetch, switch_mode, other." })),
    status: Nullable(Type.String({ description: "pending, in_progress, completed, failed." })),
    content: Type.Array(ToolCallContent),
    locations: Type.Array(Type.Object({ path: Type.String(), line: Type.Optional(Nullable(Type.Integer())) })),
    rawInput: Type.Unknown(),
    rawOutput: Type.Unknown(),
    textOffset: TextOffset,
    permission: Type.Optional(PermissionAnswer),
  },
  { $id: "ToolCallDetails" },
);
export type ToolCallDetails = Static<typeof ToolCallDetails>;

export const ThoughtDetails = Type.Object({ type: Type.Literal("thought"), text: Type.String(), textOffset: TextOffset }, { $id: "ThoughtDetails" });
export type ThoughtDetails = Static<typeof ThoughtDetails>;

export const TranscriptDetailsQuery = Type.Object({
  after: Type.Optional(
    Type.String({
      pattern: "^(latest|[ab][0-9]{1,15})$",
      description: "nextAfter or previousBefore of an earlier page, or `latest`; the first page when absent.",
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Entries per page; 50 by default." })),
});

export const TranscriptDetailsPage = Type.Object(
  {
    itemId: Type.String(),
    revision: Type.Integer({ description: "How many times the item's details changed." }),
    eventCursor: EventCursor,
    entries: Type.Array(
      Type.Object({
        key: Type.String({ description: "e.g. `tool:<toolCallId>`, `thought:<n>`." }),
        position: Type.Integer(),
        revision: Type.Integer(),
        payload: Type.Union([ToolCallDetails, ThoughtDetails]),
      }),
    ),
    nextAfter: Nullable(Type.String()),
    previousBefore: Nullable(Type.String()),
  },
  { $id: "TranscriptDetailsPage" },
);
export type TranscriptDetailsPage = Static<typeof TranscriptDetailsPage>;

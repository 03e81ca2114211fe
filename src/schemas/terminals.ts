import { Type, type Static } from "@sinclair/typebox";
import { Nullable, PageQuery, Timestamp } from "./common.ts";

/** Columns and rows a terminal may have: what a phone in portrait up to a wide desktop window shows. */
const Columns = Type.Integer({ minimum: 1, maximum: 1000, description: "Columns of the pseudo-terminal." });
const Rows = Type.Integer({ minimum: 1, maximum: 1000, description: "Rows of the pseudo-terminal." });

export const PtyTerminal = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String(),
    sessionId: Nullable(Type.String({ description: "The session whose folder it runs in, when it was opened for one." })),
    cwd: Type.String({ description: "The folder the shell started in." }),
    cols: Columns,
    rows: Rows,
    command: Nullable(Type.String({ description: "What it runs through the shell's `-c`; null for an interactive shell." })),
    state: Type.Union([Type.Literal("running"), Type.Literal("exited")]),
    exitCode: Nullable(Type.Integer({ description: "The process's exit status, once exited; null while running or when a signal ended it." })),
    signal: Nullable(Type.String({ description: "The signal that ended the process (e.g. `SIGHUP`), if one did." })),
    createdAt: Timestamp,
    exitedAt: Nullable(Timestamp),
  },
  { $id: "PtyTerminal" },
);
export type PtyTerminal = Static<typeof PtyTerminal>;

export const PtyTerminalList = Type.Array(PtyTerminal);

export const CreateTerminalBody = Type.Object({
  projectId: Type.String({ minLength: 1 }),
  locationId: Type.Optional(Type.String({ minLength: 1, description: "Run in this location of the project (its first by default)." })),
  worktreeId: Type.Optional(Type.String({ minLength: 1, description: "Run in this worktree of the project." })),
  sessionId: Type.Optional(Type.String({ minLength: 1, description: "Run in this session's folder (its worktree, or the project folder it runs in)." })),
  cols: Columns,
  rows: Rows,
  command: Type.Optional(
    Type.String({ minLength: 1, maxLength: 8192, description: "Run this through the shell (`$SHELL -c <command>`) instead of an interactive shell." }),
  ),
});
export type CreateTerminalBody = Static<typeof CreateTerminalBody>;

export const ResizeTerminalBody = Type.Object({ cols: Columns, rows: Rows });
export type ResizeTerminalBody = Static<typeof ResizeTerminalBody>;

export const TerminalListQuery = Type.Object({
  projectId: Type.Optional(Type.String({ minLength: 1, description: "Only this project's terminals." })),
  sessionId: Type.Optional(Type.String({ minLength: 1, description: "Only the terminals opened for this session." })),
  ...PageQuery.properties,
});
export type TerminalListQuery = Static<typeof TerminalListQuery>;

export const TerminalTicket = Type.Object(
  {
    ticket: Type.String({ description: "Good for one `GET /v1/terminals/{id}/socket?ticket=…`, once." }),
    expiresAt: Timestamp,
  },
  { $id: "TerminalTicket" },
);
export type TerminalTicket = Static<typeof TerminalTicket>;

const TerminalPayload = Type.Object({ terminal: PtyTerminal });

/** The events the terminals module publishes: a terminal's life, never its output. */
export const TerminalEvents = {
  "terminal.created": TerminalPayload,
  /** Resized. */
  "terminal.updated": TerminalPayload,
  /** Its process exited, or it was ended (DELETE, its project or session deleted, shutdown). */
  "terminal.exited": TerminalPayload,
};

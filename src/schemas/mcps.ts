import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";

/** What an agent sees it by: a tool's prefix, a config key. Letters, digits, `.`, `_`, `-`. */
export const McpServerName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$",
  description: "Letters, digits, `.`, `_` and `-`, starting with a letter or digit; unique among the servers made here.",
});

export const McpTransport = Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("sse")], {
  description: "`stdio`: a command Atrium (or the agent) starts. `http`: Streamable HTTP. `sse`: the older HTTP+SSE transport.",
});
export type McpTransport = Static<typeof McpTransport>;

export const McpAuthType = Type.Union([Type.Literal("none"), Type.Literal("oauth")], {
  description: "`oauth`: the server asks for a sign-in by the MCP authorization spec (POST /v1/mcps/{id}/authorize).",
});

export const McpConnectionState = Type.Union(
  [Type.Literal("disconnected"), Type.Literal("connecting"), Type.Literal("connected"), Type.Literal("failed"), Type.Literal("needs-authorization")],
  {
    description:
      "What the last probe on this machine found. `disconnected`: not probed (off, off here, or a harness's own server not probed yet). " +
      "`connecting`: a probe runs. `connected`: it answered initialize and tools/list. `failed`: it did not (`detail` says why). " +
      "`needs-authorization`: it answered 401; sign in with POST /v1/mcps/{id}/authorize.",
  },
);
export type McpConnectionState = Static<typeof McpConnectionState>;

export const McpServerKind = Type.Union(
  [
    Type.Literal("managed"),
    Type.Literal("claude"),
    Type.Literal("codex"),
    Type.Literal("gemini"),
    Type.Literal("opencode"),
    Type.Literal("qwen"),
    Type.Literal("copilot"),
  ],
  { description: "`managed`: made in Atrium, given to every session. Otherwise the harness whose own config holds it (read-only here)." },
);
export type McpServerKind = Static<typeof McpServerKind>;

export const McpServer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    kind: McpServerKind,
    canEdit: Type.Boolean(),
    canRemove: Type.Boolean(),
    enabled: Type.Boolean({ description: "On for the account; see `disabledHere` for this machine." }),
    disabledHere: Type.Boolean({ description: "Off on this machine although `enabled` (endpoint 16)." }),
    transport: McpTransport,
    url: Type.String({ description: "For `http` and `sse`; empty for `stdio`." }),
    command: Type.String({ description: "For `stdio`, run without a shell; empty otherwise." }),
    args: Type.Array(Type.String()),
    headerNames: Type.Array(Type.String(), { description: "Names only: the values are kept on this machine and never returned." }),
    environmentNames: Type.Array(Type.String(), { description: "Names only: the values are kept on this machine and never returned." }),
    authType: McpAuthType,
    oauthScope: Type.String({ description: "The scope asked for at sign-in: as set, else as the server asked in its 401; may be empty." }),
    connectionState: McpConnectionState,
    toolCount: Type.Integer({ minimum: 0, description: "Tools the last good probe listed." }),
    detail: Type.String({ description: "Why the state is what it is: the exit code and last stderr lines, the HTTP status; empty when connected." }),
    configPath: Nullable(Type.String({ description: "For a harness's own server, the file it is configured in." })),
    probedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: "McpServer" },
);
export type McpServer = Static<typeof McpServer>;

export const McpServerList = Type.Object({ servers: Type.Array(McpServer, { description: "Managed servers by name, then each harness's." }) });
export type McpServerList = Static<typeof McpServerList>;

export const McpMachineState = Type.Object(
  {
    machineId: Type.String({ description: "This machine (info's `machineId`)." }),
    server: McpServer,
    disabledHere: Type.Boolean(),
    enabled: Type.Boolean({ description: "What sessions on this machine get: on for the account and not off here." }),
  },
  { $id: "McpMachineState" },
);
export type McpMachineState = Static<typeof McpMachineState>;

const SecretName = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z_][A-Za-z0-9_.-]*$" });
const SecretValue = Type.String({ maxLength: 8192 });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: "http:// or https://" });
const Arg = Type.String({ maxLength: 4096 });

export const CreateMcpServerBody = Type.Object(
  {
    name: McpServerName,
    transport: McpTransport,
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "Required for `stdio`: a program, run without a shell." })),
    args: Type.Optional(Type.Array(Arg, { maxItems: 256 })),
    environment: Type.Optional(Type.Record(SecretName, SecretValue, { description: "For `stdio`: name → value; stored, never returned." })),
    url: Type.Optional(Url),
    headers: Type.Optional(Type.Record(SecretName, SecretValue, { description: "For `http`/`sse`: name → value; stored, never returned." })),
    authType: Type.Optional(McpAuthType),
    oauthScope: Type.Optional(Type.String({ maxLength: 1024 })),
    enabled: Type.Optional(Type.Boolean({ description: "true unless given." })),
  },
  { additionalProperties: false },
);
export type CreateMcpServerBody = Static<typeof CreateMcpServerBody>;

const KeptOrNew = Nullable(SecretValue);
export const UpdateMcpServerBody = Type.Object(
  {
    name: Type.Optional(McpServerName),
    transport: Type.Optional(McpTransport),
    command: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    args: Type.Optional(Type.Array(Arg, { maxItems: 256 })),
    environment: Type.Optional(
      Type.Record(SecretName, KeptOrNew, {
        description: "The whole set of names: a value sets it, null keeps the stored value, a name left out is removed. Leave the field out to keep all.",
      }),
    ),
    url: Type.Optional(Url),
    headers: Type.Optional(
      Type.Record(SecretName, KeptOrNew, {
        description: "The whole set of names: a value sets it, null keeps the stored value, a name left out is removed. Leave the field out to keep all.",
      }),
    ),
    authType: Type.Optional(McpAuthType),
    oauthScope: Type.Optional(Type.String({ maxLength: 1024 })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMcpServerBody = Static<typeof UpdateMcpServerBody>;

export const McpMachineStateBody = Type.Object({ disabledHere: Type.Boolean() }, { additionalProperties: false });

export const McpAuthorizeBody = Type.Object(
  {
    redirectUri: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "Where the browser returns with the code, for a client that catches it itself (then it calls POST /v1/mcps/oauth/complete). " +
          "Atrium's own GET /v1/mcps/oauth/callback at the address this request came to unless given.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const McpAuthorization = Type.Object(
  {
    authorizationUrl: Type.String({ description: "Open this in a browser; it expires with the flow." }),
    state: Type.String({ description: "The flow's state parameter, valid for one use." }),
    expiresAt: Timestamp,
  },
  { $id: "McpAuthorization" },
);
export type McpAuthorization = Static<typeof McpAuthorization>;

export const McpCompleteAuthorizationBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 4096 }), state: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

/** What a session was given at session/new or session/load: each managed server, or why it was left out. */
export const SessionMcpServer = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    transport: McpTransport,
    given: Type.Boolean({ description: "Passed to the agent; false when left out (`reason` says why)." }),
    reason: Nullable(
      Type.String({
        description:
          "Left out: why (the agent takes no `sse` servers, a sign-in is needed). Given: why the agent may still not use it (Gemini in a folder it does not trust, Copilot CLI with stdio servers).",
      }),
    ),
  },
  { $id: "SessionMcpServer" },
);
export type SessionMcpServer = Static<typeof SessionMcpServer>;

export const McpEvents = {
  /** A server was added or changed, or a probe changed its state: the server as GET /v1/mcps/{id} shows it. */
  "mcp.updated": Type.Object({ server: McpServer }),
  /** A managed server was removed. */
  "mcp.deleted": Type.Object({ id: Type.String() }),
};

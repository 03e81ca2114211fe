import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";
import { addressedToSubject } from "./events.ts";

export const ClientId = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: "^[A-Za-z0-9._-]+$",
  description: "Chosen by the client; stable across its restarts.",
});

const Text = Type.String({ maxLength: 512 });
const Names = Type.Array(Type.String({ maxLength: 128 }), { maxItems: 256 });

export const WindowPane = Type.Object({ id: Text, kind: Text, title: Text, sessionId: Text, leafId: Text }, { additionalProperties: false });
export const Split = Type.Object(
  {
    branchPath: Type.Array(Type.Integer(), { maxItems: 64 }),
    orientation: Text,
    fractions: Type.Array(Type.Number(), { maxItems: 64 }),
    children: Type.Array(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 64 }), { maxItems: 64 }),
  },
  { additionalProperties: false },
);
export const Tab = Type.Object(
  { id: Text, title: Text, activeLeafId: Text, panes: Type.Array(WindowPane, { maxItems: 64 }), splits: Type.Array(Split, { maxItems: 64 }) },
  { additionalProperties: false },
);
export const Workspace = Type.Object(
  { id: Text, projectId: Text, name: Text, tabId: Text, paneId: Text, sessionId: Text, tabs: Type.Array(Tab, { maxItems: 64 }) },
  { additionalProperties: false },
);

const windowStateFields = {
  isActive: Type.Boolean(),
  workspaceId: Text,
  workspaces: Type.Array(Workspace, { maxItems: 64 }),
  page: Type.Object({ page: Text, settingsSection: Text, presentation: Text }, { additionalProperties: false }),
  capabilities: Type.Object(
    {
      pages: Names,
      settingsSections: Names,
      layoutActions: Names,
      windowActions: Type.Array(Type.Union([Type.Literal("focus"), Type.Literal("minimize"), Type.Literal("restore")]), { maxItems: 3 }),
    },
    { additionalProperties: false, description: "What the client can be asked to do; anything else is refused before it is sent." },
  ),
  window: Type.Object(
    {
      x: Type.Number(),
      y: Type.Number(),
      width: Type.Number(),
      height: Type.Number(),
      isMinimized: Type.Boolean(),
      isFullscreen: Type.Boolean(),
      sidebarVisible: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
};

export const ClientWindowState = Type.Object(windowStateFields, { $id: "ClientWindowState" });
export type ClientWindowState = Static<typeof ClientWindowState>;

export const PutWindowStateBody = Type.Object(
  {
    ...windowStateFields,
    ackActionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "The action this state answers (from a `client.action` event)." })),
  },
  { additionalProperties: false },
);
export type PutWindowStateBody = Static<typeof PutWindowStateBody>;

export const ClientSummary = Type.Object(
  {
    clientId: Type.String(),
    connected: Type.Boolean({ description: "It holds an event stream open with its clientId." }),
    lastSeenAt: Timestamp,
    updatedAt: Timestamp,
    state: ClientWindowState,
  },
  { $id: "ClientSummary" },
);
export type ClientSummary = Static<typeof ClientSummary>;

export const ClientList = Type.Object({ clients: Type.Array(ClientSummary) });

export const WindowActionBody = Type.Object(
  { action: Type.Union([Type.Literal("focus"), Type.Literal("minimize"), Type.Literal("restore")]) },
  { additionalProperties: false },
);
export const NavigateBody = Type.Object(
  { page: Type.String({ minLength: 1, maxLength: 128 }), settingsSection: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) },
  { additionalProperties: false },
);
export const LayoutBody = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 128, description: "One of the client's capabilities.layoutActions, e.g. `openSession`." }),
    sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    workspaceId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    paneId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);

/** What a client is asked to do: sent on its own event stream only. */
export const ClientAction = Type.Object(
  {
    clientId: Type.String(),
    actionId: Type.String({ description: "Answer with PUT /v1/clients/{clientId}/window-state carrying ackActionId." }),
    kind: Type.Union([Type.Literal("window"), Type.Literal("navigate"), Type.Literal("layout")]),
    action: Type.Union([Type.String(), Type.Null()], { description: "The window or layout action; null for navigate." }),
    page: Nullable(Type.String()),
    settingsSection: Nullable(Type.String()),
    sessionId: Nullable(Type.String()),
    workspaceId: Nullable(Type.String()),
    paneId: Nullable(Type.String()),
  },
  addressedToSubject,
);
export type ClientAction = Static<typeof ClientAction>;

export const ClientEvents = {
  /** A client's layout changed, or it connected or went away. */
  "client.updated": Type.Object({ client: ClientSummary }),
  /** Delivered only on the event stream of the client it is for (`clientId` in the stream's query). */
  "client.action": ClientAction,
};

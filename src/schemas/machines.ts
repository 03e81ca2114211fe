import { Type, type Static } from "@sinclair/typebox";
import { Timestamp } from "./common.ts";
import { SyncResponseEntry, SyncTimestamp } from "./sync.ts";

export const MachineId = Type.String({ minLength: 1, maxLength: 56, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" });

export const Machine = Type.Object(
  {
    id: Type.String({ description: "The machine's `machineId` (GET /v1/info)." }),
    name: Type.String(),
    os: Type.String({ description: "`linux`, `darwin`, `windows`, …" }),
    online: Type.Boolean({ description: "It answered this server's last health call (always true for the current machine)." }),
    lastSeen: Type.String({ format: "date-time", description: "When this server last heard from it (RFC 3339, UTC)." }),
    isCurrent: Type.Boolean({ description: "It is the machine that answers this request." }),
    addedBy: Type.String({ description: "The access token that paired it here; empty for the current machine." }),
    url: Type.String({
      description: "Where this server reaches it (the address it was paired by); for the current machine, the address it gives its peers.",
    }),
  },
  { $id: "Machine" },
);
export type Machine = Static<typeof Machine>;

export const MachineList = Type.Object({ machines: Type.Array(Machine) }, { $id: "MachineList" });
export type MachineList = Static<typeof MachineList>;

export const PairingCode = Type.Object(
  {
    code: Type.String({ description: "Typed into the other machine's pair request; used once." }),
    expiresAt: Timestamp,
  },
  { $id: "PairingCode" },
);
export type PairingCode = Static<typeof PairingCode>;

export const PairBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: "Where this server reaches the machine that made the code, e.g. http://studio.local:7433." }),
  code: Type.String({ minLength: 1, maxLength: 64 }),
});
export type PairBody = Static<typeof PairBody>;

/** What one machine tells another of itself when they meet. */
export const PeerAbout = Type.Object({
  id: MachineId,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  os: Type.String({ maxLength: 40 }),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
});
export type PeerAbout = Static<typeof PeerAbout>;

const PeerToken = Type.String({ minLength: 16, maxLength: 200, description: "An access token the sender minted for the receiver." });

export const PairAcceptBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }), machine: PeerAbout, token: PeerToken });
export type PairAcceptBody = Static<typeof PairAcceptBody>;
export const PairAcceptAnswer = Type.Object({ machine: PeerAbout, token: PeerToken }, { $id: "PairAcceptAnswer" });
export type PairAcceptAnswer = Static<typeof PairAcceptAnswer>;

export const HeartbeatBody = Type.Object({ machine: PeerAbout, cursor: Type.Integer({ minimum: 0, description: "The sender's event cursor." }) });
export type HeartbeatBody = Static<typeof HeartbeatBody>;
export const HeartbeatAnswer = Type.Object({ machine: PeerAbout, cursor: Type.Integer({ minimum: 0 }) }, { $id: "HeartbeatAnswer" });
export type HeartbeatAnswer = Static<typeof HeartbeatAnswer>;

/** `@` starts the namespaces Atrium keeps for itself (the MCP registry), which clients cannot reach. */
const ReplicatedNamespace = Type.String({ pattern: "^@?[A-Za-z0-9._-]{1,100}$" });

export const SyncChanges = Type.Object(
  {
    entries: Type.Array(Type.Composite([Type.Object({ namespace: ReplicatedNamespace }), SyncResponseEntry])),
    cursor: Type.Integer({ minimum: 0, description: "Ask after this next time." }),
    more: Type.Boolean({ description: "Another page follows at once." }),
  },
  { $id: "SyncChanges" },
);
export type SyncChanges = Static<typeof SyncChanges>;

export const SyncPushBody = Type.Object({
  entries: Type.Array(
    Type.Object({ namespace: ReplicatedNamespace, key: Type.String({ minLength: 1, maxLength: 500 }), value: Type.Unknown(), timestamp: SyncTimestamp }),
    {
      maxItems: 1000,
    },
  ),
});
export type SyncPushBody = Static<typeof SyncPushBody>;

export const SyncPushAnswer = Type.Object(
  { changed: Type.Integer({ minimum: 0, description: "Entries that were newer than what the receiver had." }) },
  { $id: "SyncPushAnswer" },
);
export type SyncPushAnswer = Static<typeof SyncPushAnswer>;

/** The events the machines module publishes, with their payloads. */
export const MachineEvents = {
  /** A machine was paired, renamed, or went on- or offline. */
  "machine.updated": Machine,
  /** A machine left the account (removed here, or it removed this one). */
  "machine.deleted": Type.Object({ id: Type.String() }),
};

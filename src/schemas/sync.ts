import { Type, type Static } from "@sinclair/typebox";

export const SyncTimestamp = Type.Object({
  wallMs: Type.Number({ minimum: 0 }),
  counter: Type.Integer({ minimum: 0 }),
  deviceId: Type.String({ minLength: 1, maxLength: 200 }),
});
export type SyncTimestamp = Static<typeof SyncTimestamp>;

export const SyncRequestEntry = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 500 }),
  value: Type.Unknown({ description: "Any JSON value; null deletes the entry." }),
  timestamp: SyncTimestamp,
});

export const SyncPutBody = Type.Object({
  entries: Type.Array(SyncRequestEntry, { maxItems: 1000 }),
});
export type SyncPutBody = Static<typeof SyncPutBody>;

export const SyncResponseEntry = Type.Object({
  key: Type.String(),
  value: Type.Unknown(),
  timestamp: SyncTimestamp,
  deleted: Type.Boolean(),
});
export type SyncResponseEntry = Static<typeof SyncResponseEntry>;

export const SyncNamespace = Type.Object({ namespace: Type.String(), entries: Type.Array(SyncResponseEntry) }, { $id: "SyncNamespace" });
export type SyncNamespace = Static<typeof SyncNamespace>;

/** The events the sync module publishes, with their payloads. */
export const SyncEvents = {
  "sync.changed": Type.Object({
    namespace: Type.String(),
    keys: Type.Array(Type.String(), { description: "The keys whose entry changed." }),
  }),
};

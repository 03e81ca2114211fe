import { Type, type Static } from "@sinclair/typebox";

/**
 * Every event kind with the schema of its payload. The OpenAPI document lists them, and the event log
 * only accepts kinds named here.
 */
export const eventPayloads = {
  "sync.changed": Type.Object({
    namespace: Type.String(),
    keys: Type.Array(Type.String(), { description: "The keys whose entry changed." }),
  }),
};

export type EventKind = keyof typeof eventPayloads;
export type EventPayload<K extends EventKind> = Static<(typeof eventPayloads)[K]>;

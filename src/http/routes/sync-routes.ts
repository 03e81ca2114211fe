import { Type } from "@sinclair/typebox";
import { SyncNamespace, SyncPutBody } from "../../schemas/sync.ts";
import type { SyncService } from "../../sync/sync-service.ts";
import { defineRoute } from "../route.ts";

const NamespaceParams = Type.Object({
  namespace: Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$", description: "Letters, digits, `.`, `_`, `-`." }),
});

export function syncRoutes(sync: SyncService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/sync/:namespace",
      tag: "sync",
      summary: "The entries of a settings namespace, deleted ones included",
      params: NamespaceParams,
      response: SyncNamespace,
      handler: ({ params }) => sync.get(params.namespace),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/sync/:namespace",
      tag: "sync",
      summary: "Submit timestamped entries; the newest timestamp per key wins",
      description:
        "An entry replaces the stored one only when its timestamp (wallMs, then counter, then deviceId) is newer. " +
        "A `null` value deletes the key; it is then returned with `deleted: true`.",
      params: NamespaceParams,
      body: SyncPutBody,
      response: SyncNamespace,
      handler: ({ params, body }) => sync.put(params.namespace, body),
    }),
  ];
}

import { Type } from "@sinclair/typebox";
import { Harness, HarnessList, UpdateHarnessBody } from "../../schemas/harnesses.ts";
import type { HarnessService } from "../../harness/harness-service.ts";
import { defineRoute } from "../route.ts";

const HarnessParams = Type.Object({ id: Type.String({ minLength: 1 }) });

export function harnessRoutes(harnesses: HarnessService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/harnesses",
      tag: "harnesses",
      summary: "Every harness with its readiness and login state, from the last scan",
      response: HarnessList,
      handler: () => harnesses.list(),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/harnesses/:id",
      tag: "harnesses",
      summary: "One harness",
      params: HarnessParams,
      response: Harness,
      handler: ({ params }) => harnesses.get(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/rescan",
      tag: "harnesses",
      summary: "Re-detect the installed CLIs without restarting; returns every harness",
      description: "Finds each executable on the service's PATH, reads its version and its login state, in parallel.",
      response: HarnessList,
      handler: () => harnesses.rescan(),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/auth/refresh",
      tag: "harnesses",
      summary: "Re-read every harness's login state; returns every harness",
      response: HarnessList,
      handler: () => harnesses.refreshAuth(),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/harnesses/:id",
      tag: "harnesses",
      summary: "Enable or disable a harness (settings.override); null follows the default again",
      params: HarnessParams,
      body: UpdateHarnessBody,
      response: Harness,
      handler: ({ params, body }) => harnesses.setEnabled(params.id, body.enabled),
    }),
  ];
}

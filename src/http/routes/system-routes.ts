import { Type } from "@sinclair/typebox";
import { Health, ServerInfo } from "../../schemas/system.ts";
import type { SystemStatus } from "../../system/system-status.ts";
import { defineRoute } from "../route.ts";

export function systemRoutes(status: SystemStatus) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/health",
      tag: "system",
      summary: "Health of the server: release, database, process, migrations",
      description: "Needs a token, except from a loopback peer that sends no Authorization header.",
      openLocally: true,
      response: Health,
      handler: () => status.health(),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/info",
      tag: "system",
      summary: "Identity of the server and the machine it runs on",
      response: ServerInfo,
      handler: () => status.info(),
    }),
  ];
}

/** The OpenAPI route is built last, once every other route is known. */
export function openApiRoute(document: () => Record<string, unknown>) {
  return defineRoute({
    method: "GET",
    path: "/v1/openapi.json",
    tag: "system",
    summary: "This OpenAPI 3.1 document",
    response: Type.Object({ openapi: Type.String() }, { additionalProperties: true }),
    handler: () => document() as { openapi: string },
  });
}

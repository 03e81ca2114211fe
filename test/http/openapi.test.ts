import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { MODULES } from "../../src/modules/modules.ts";

let t: TestServer;
let document: {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters: Array<{ name: string; in: string }>;
        responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
        security?: unknown;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  security: unknown;
};
beforeAll(async () => {
  t = await startTestServer();
  document = (await (await t.api("/v1/openapi.json")).json()) as typeof document;
});
afterAll(() => t.stop());

/** Every `$ref` in the document, to check that each one resolves. */
function refs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refs(item, found);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") found.push(value);
      else refs(value, found);
    }
  }
  return found;
}

describe("OpenAPI document", () => {
  test("passes an OpenAPI 3.1 validator", async () => {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("each path's {parameters} are the operation's path parameters, no more, no fewer", () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!).sort();
      for (const [method, operation] of Object.entries(methods)) {
        const declared = operation.parameters.filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
        expect(declared.sort(), `${method} ${path}`).toEqual(inPath);
      }
    }
  });

  test("a pane's content route names the rest of its path {path}", () => {
    const pane = document.paths["/v1/plugins/{pluginId}/panes/{pane}/{path}"]!;
    expect(Object.keys(pane).sort()).toEqual(["get", "options", "post"]);
    expect(pane.get!.parameters.map((parameter) => parameter.name)).toEqual(["pluginId", "pane", "path"]);
  });

  test("health's token is optional (a local check without one answers); the rest need it unless ticketed", () => {
    expect(document.paths["/v1/health"]!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
    expect(document.paths["/v1/info"]!.get!.security).toBeUndefined();
  });

  test("content types are as served: the sign-in callback's page is HTML, success or refusal", () => {
    const callback = document.paths["/v1/mcps/oauth/callback"]!.get!.responses;
    expect(Object.keys(callback["200"]!.content!)).toEqual(["text/html"]);
    expect(Object.keys(callback["409"]!.content!)).toEqual(["text/html"]);
    expect(Object.keys(callback["400"]!.content!)).toEqual(["application/json"]);
  });

  test("is OpenAPI 3.1 with bearer auth for everything", () => {
    expect(document.openapi).toBe("3.1.0");
    expect(document.components.securitySchemes.bearerAuth).toEqual({ type: "http", scheme: "bearer" });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
  });

  test("every $ref resolves and no $id is left to confuse resolution", () => {
    const all = refs(document);
    expect(all.length).toBeGreaterThan(0);
    for (const ref of all) {
      const name = ref.replace("#/components/schemas/", "");
      expect(document.components.schemas[name]).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain('"$id"');
  });

  test("every operation has a unique id and documents success and the error statuses", () => {
    const ids = new Set<string>();
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        expect(ids.has(operation.operationId)).toBe(false);
        ids.add(operation.operationId);
        for (const status of ["400", "401", "403", "404", "409", "500"]) expect(operation.responses[status]).toBeDefined();
      }
    }
  });

  test("every event kind's payload schema is listed", () => {
    const kinds = MODULES.flatMap((module) => Object.keys(module.eventKinds));
    expect(kinds).toContain("session.message.delta");
    for (const kind of kinds) expect(document.components.schemas[`Event.${kind}`]).toBeDefined();
  });

  test("a plugin's 502 and a client's 504 are documented where they can happen", () => {
    expect(Object.keys(document.paths["/v1/plugins/{pluginId}/tools/{name}"]!.post!.responses)).toContain("502");
    expect(Object.keys(document.paths["/v1/plugins/{pluginId}/panes/{pane}/{path}"]!.get!.responses)).toContain("502");
    expect(Object.keys(document.paths["/v1/clients/{clientId}/window"]!.post!.responses)).toContain("504");
    expect(Object.keys(document.paths["/v1/projects"]!.get!.responses)).not.toContain("504");
  });

  test("a push subscription's two successes are documented with the same body: 201 made, 200 replaced", () => {
    const responses = document.paths["/v1/push/subscriptions"]!.post!.responses as Record<string, { content: unknown }>;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(["200", "201"]));
    expect(responses["201"]!.content).toEqual(responses["200"]!.content);
  });

  test("a pane's CORS preflight is documented as 204 with no body, and needs no token", () => {
    const preflight = document.paths["/v1/plugins/{pluginId}/panes/{pane}/{path}"]!.options!;
    expect(preflight.responses["204"]).toEqual({ description: "Success, with no content." });
    expect(preflight.security).toEqual([]);
  });

  test("the health and info shapes are named components", () => {
    expect(document.components.schemas.Health).toBeDefined();
    expect(document.components.schemas.ServerInfo).toBeDefined();
  });
});

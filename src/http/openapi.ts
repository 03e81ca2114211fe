import type { TSchema } from "@sinclair/typebox";
import { ErrorBody } from "../schemas/common.ts";
import { eventRecordSchema } from "../schemas/events.ts";
import { EVENT_CURSOR_HEADER } from "./paging.ts";
import { openApiPath, type Route, WILDCARD_PARAMETER } from "./route.ts";

type JsonObject = Record<string, unknown>;

const ERROR_STATUSES: Record<string, string> = {
  "400": "Malformed JSON, or a field that breaks the schema (the message names it).",
  "401": "Missing or wrong bearer token.",
  "403": "Not allowed.",
  "404": "Unknown route or id.",
  "409": "Conflicts with the current state (busy, in flight, duplicate).",
  "500": "Unexpected failure; details are in the server log.",
};

/**
 * Collects every sub-schema that carries a `$id` into `components.schemas` and puts a `$ref` in its
 * place. The `$id` itself is dropped: in OpenAPI 3.1 it would change how the `#/…` refs resolve.
 */
class ComponentCollector {
  readonly schemas: Record<string, unknown> = {};

  ref(schema: TSchema | JsonObject): unknown {
    return this.walk(JSON.parse(JSON.stringify(schema)) as unknown);
  }

  /** Registers `schema` under `name` even when it has no `$id`. */
  add(name: string, schema: TSchema | JsonObject): void {
    const plain = JSON.parse(JSON.stringify(schema)) as JsonObject;
    delete plain.$id;
    this.schemas[name] = this.walkChildren(plain);
  }

  private walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.walk(item));
    if (!node || typeof node !== "object") return node;
    const object = node as JsonObject;
    if (typeof object.$id === "string") {
      const name = object.$id;
      if (!(name in this.schemas)) {
        this.schemas[name] = {};
        const { $id: _dropped, ...rest } = object;
        this.schemas[name] = this.walkChildren(rest);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    return this.walkChildren(object);
  }

  private walkChildren(object: JsonObject): JsonObject {
    return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, this.walk(value)]));
  }
}

/** `GET /v1/sessions/:id/events` → `getSessionsByIdEvents` */
function operationId(route: Route): string {
  const words = route.path
    .split("/")
    .filter((part) => part.length > 0 && part !== "v1")
    .map((part) => (part.startsWith(":") ? `By-${part.slice(1)}` : part))
    .flatMap((part) => part.split(/[-_.]/))
    .filter((word) => word.length > 0)
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
  return route.method.toLowerCase() + words.join("");
}

function parameters(schema: TSchema | undefined, location: "path" | "query", components: ComponentCollector) {
  if (!schema) return [];
  const object = components.ref(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name: name === "*" ? WILDCARD_PARAMETER : name,
      in: location,
      required: location === "path" || (object.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

export interface OpenApiOptions {
  version: string;
  eventPayloads: Record<string, TSchema>;
}

/** A route's success response: none for a 204, the event kinds for a stream, else its schema. */
function successResponse(route: Route, eventRefs: JsonObject[], components: ComponentCollector): JsonObject {
  if (route.successStatus === 204) return { description: "Success, with no content." };
  if (route.webSocket) return { description: "Switching Protocols: the connection is a WebSocket from now on." };
  if (route.eventStream) {
    return {
      description: "Server-Sent Events: `id:` is the globalEventId, `event:` the kind, `data:` the event record.",
      content: { "text/event-stream": { schema: { oneOf: eventRefs } } },
    };
  }
  return {
    description: "Success.",
    content: { [route.responseType ?? "application/json"]: { schema: components.ref(route.response) } },
    ...(route.paged
      ? {
          headers: {
            Link: { description: 'The next page, as `<url>; rel="next"`; absent on the last page.', schema: { type: "string" } },
            [EVENT_CURSOR_HEADER]: {
              description: "The global event cursor the page was read at: follow events after it to keep the page current.",
              schema: { type: "integer" },
            },
          },
        }
      : {}),
  };
}

/** The request body: JSON by the route's schema, or the raw bytes a route takes unread. */
function requestBody(route: Route, components: ComponentCollector): JsonObject {
  if (route.body) return { requestBody: { required: true, content: { "application/json": { schema: components.ref(route.body) } } } };
  if (route.rawBodyType) return { requestBody: { required: true, content: { [route.rawBodyType]: { schema: { type: "string", format: "binary" } } } } };
  return {};
}

/** Who may call a route: a ticket instead of the token, or the token or nothing from loopback (health). */
function security(route: Route): JsonObject {
  if (route.ticketed) return { security: [] };
  if (route.openLocally) return { security: [{ bearerAuth: [] }, {}] };
  return {};
}

/** The error statuses a route answers, each {error} in JSON unless the route answers it with a page. */
function errorResponses(route: Route, errorRef: unknown): JsonObject {
  const errors: Record<string, string> = {
    ...ERROR_STATUSES,
    ...(route.body || route.rawBodyType ? { "413": "The request body is over the route's size limit." } : {}),
    ...route.moreErrors,
    ...route.errorPages,
  };
  const page = { [route.responseType ?? "application/json"]: { schema: { type: "string" } } };
  const body = { "application/json": { schema: errorRef } };
  return Object.fromEntries(
    Object.entries(errors).map(([status, description]) => [status, { description, content: route.errorPages?.[status] ? page : body }]),
  );
}

/** The OpenAPI 3.1 document of every route, from the same schemas that validate requests. */
export function buildOpenApiDocument(routes: Route[], options: OpenApiOptions): JsonObject {
  const components = new ComponentCollector();
  const errorRef = components.ref(ErrorBody);
  const paths: Record<string, Record<string, unknown>> = {};

  const eventRefs = Object.entries(options.eventPayloads).map(([kind, payload]) => {
    components.add(`Event.${kind}`, eventRecordSchema(payload, { kind }));
    return { $ref: `#/components/schemas/Event.${kind}` };
  });

  for (const route of routes.filter((candidate) => !candidate.publicFile)) {
    const success = successResponse(route, eventRefs, components);
    const operation: JsonObject = {
      operationId: operationId(route),
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      parameters: [...parameters(route.params, "path", components), ...parameters(route.query, "query", components)],
      ...requestBody(route, components),
      responses: {
        [route.webSocket ? "101" : String(route.successStatus ?? 200)]: success,
        ...Object.fromEntries(Object.entries(route.moreSuccesses ?? {}).map(([status, description]) => [status, { ...success, description }])),
        ...errorResponses(route, errorRef),
      },
      ...security(route),
    };
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Atrium",
      version: options.version,
      description:
        "Coordinates the coding-agent CLIs on this machine. Every route needs `Authorization: Bearer <token>`, " +
        "except a local `GET /v1/health` without an Authorization header (its token is optional), and the routes marked " +
        "`security: []` (a browser's return from a sign-in, a plugin's pane), which check a ticket of their own instead. " +
        "HEAD answers as GET does on every route that has a GET, without the body. String lengths count characters " +
        "(code points), as JSON Schema does. JSON answers of 1 KiB or more are compressed as `Accept-Encoding` asks.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: components.schemas,
    },
  };
}

import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Logger } from "../logging/logger.ts";
import { checkAccess } from "./auth-guard.ts";
import { mapError } from "./error-mapping.ts";
import { jsonBodyParser } from "./json-body.ts";
import { requestValidator } from "./request-validator.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { DEFAULT_BODY_LIMIT_BYTES, type Route } from "./route.ts";
import { openApiRoute } from "./routes/system-routes.ts";

export interface HttpAppDeps {
  routes: Route[];
  tokens: AccessTokens;
  logger: Logger;
  version: string;
  eventPayloads: Record<string, TSchema>;
}

/** The path of a request URL without parsing all of it; this runs on every request. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/** Every route plus the OpenAPI route that describes them all. */
export function allRoutes(routes: Route[], version: string, eventPayloads: Record<string, TSchema>): Route[] {
  let document: Record<string, unknown> | undefined;
  const all: Route[] = [...routes];
  all.push(openApiRoute(() => (document ??= buildOpenApiDocument(all, { version, eventPayloads }))));
  return all;
}

type HandlerInput = Parameters<Route["handler"]>[0];
interface ElysiaContext {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  request: Request;
  set: { status?: number | string };
}

/**
 * Adapts a route to Elysia. Elysia reads a handler's source to decide what to parse for it, and a
 * handler that names query, params or body costs a third of the throughput even when they are empty;
 * routes that take none of them get a handler that names only what it uses.
 */
function elysiaHandler(route: Route): (context: ElysiaContext) => ReturnType<Route["handler"]> {
  const validate = {
    params: route.params ? requestValidator(route.params, "path") : (input: unknown) => input,
    query: route.query ? requestValidator(route.query, "query") : () => ({}),
    body: route.body ? requestValidator(route.body, "body") : () => undefined,
  };
  const run = (input: Omit<ElysiaContext, "set">, set: ElysiaContext["set"]) => {
    const context = {
      params: validate.params(input.params),
      query: validate.query(input.query),
      body: validate.body(input.body),
      request: input.request,
    } as HandlerInput;
    if (route.successStatus) set.status = route.successStatus;
    return route.handler(context);
  };
  if (!route.params && !route.query && route.method === "GET") return ({ request, set }) => run({ request }, set);
  return ({ params, query, body, request, set }) => run({ params, query, body, request }, set);
}

export function createHttpApp(deps: HttpAppDeps) {
  const app = new Elysia()
    .onRequest(({ request, server }) => {
      checkAccess(request, () => pathOf(request.url), () => server?.requestIP(request)?.address, deps.tokens);
    })
    .onError(({ code, error, request, set }) => {
      const mapped = mapError(code, error, request, deps.logger);
      if (mapped.status === 401) {
        deps.logger.info("refused a request without a valid token", { method: request.method, path: pathOf(request.url) });
      }
      set.status = mapped.status;
      set.headers["content-type"] = "application/json; charset=utf-8";
      for (const [name, value] of Object.entries(mapped.headers ?? {})) set.headers[name] = value;
      return JSON.stringify({ error: mapped.message });
    });

  // Registered only when kept: a hook on every request costs throughput.
  if (deps.logger.enabled("debug")) {
    app.onAfterResponse(({ request, set }) => {
      deps.logger.debug("request", { method: request.method, path: pathOf(request.url), status: set.status });
    });
  }

  for (const route of allRoutes(deps.routes, deps.version, deps.eventPayloads)) {
    const takesBody = route.method !== "GET";
    app.route(
      route.method,
      route.path,
      elysiaHandler(route),
      takesBody ? { parse: jsonBodyParser(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES) } : {},
    );
  }
  return app;
}

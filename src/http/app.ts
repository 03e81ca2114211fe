import { Elysia } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Logger } from "../logging/logger.ts";
import { checkAccess, pathOf, routeAccess } from "./auth-guard.ts";
import { errorResponse, mapError } from "./error-mapping.ts";
import { jsonBodyParser } from "./json-body.ts";
import { jsonAnswer } from "./compressed-json.ts";
import { requestValidator } from "./request-validator.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { DEFAULT_BODY_LIMIT_BYTES, type Route } from "./route.ts";
import { openApiRoute } from "./routes/system-routes.ts";
import type { RefusalLog } from "./refusal-log.ts";
import type { HttpServer, SocketHandlers } from "./web-socket.ts";
import type { FullServer } from "./early-listener.ts";

export interface HttpAppDeps {
  routes: Route[];
  tokens: AccessTokens;
  logger: Logger;
  version: string;
  eventPayloads: Record<string, TSchema>;
  /** Refuses requests whose Host header names another site (see host-check.ts); none when absent. */
  checkHost?: (request: Request) => void;
  /** Where refusals are counted (shared with the early listener). */
  refusals: RefusalLog;
}

/** Every route plus the OpenAPI route that describes them all. */
export function allRoutes(routes: Route[], version: string, eventPayloads: Record<string, TSchema>): Route[] {
  let document: Record<string, unknown> | undefined;
  const all: Route[] = [...routes];
  all.push(openApiRoute(() => (document ??= buildOpenApiDocument(all, { version, eventPayloads }))));
  return all;
}

type HandlerInput = Parameters<Route["handler"]>[0];
type HandlerResult = ReturnType<Route["handler"]>;

/**
 * A route's answer: what it returns as JSON with its success status, compressed as the client asks from
 * 1 KiB (compressed-json.ts); a Response it made itself goes as it is.
 */
function answer(result: HandlerResult, request: Request, status: number): HandlerResult {
  if (result instanceof Promise) return result.then((settled) => answer(settled, request, status) as Response);
  if (result instanceof Response) return result;
  return jsonAnswer(result, request, status);
}

interface ElysiaContext {
  params?: unknown;
  query?: unknown;
  body?: unknown;
  request: Request;
  server?: HttpServer | null;
}

/**
 * Adapts a route to Elysia. Elysia reads a handler's source to decide what to prepare for it: naming
 * query, params or body makes it parse them, which costs a noticeable share of throughput even when
 * unused, so a route gets a handler that names only what it needs. The status goes in the Response
 * (naming `set` would send every answer through Elysia's slower header-merging path).
 */
function elysiaHandler(route: Route, logger: Logger): (context: ElysiaContext) => ReturnType<Route["handler"]> {
  const validate = {
    params: route.params ? requestValidator(route.params, "path") : (input: unknown) => input,
    query: route.query ? requestValidator(route.query, "query") : () => ({}),
    body: route.body ? requestValidator(route.body, "body") : () => undefined,
  };
  const status = route.successStatus ?? 200;
  const run = (input: ElysiaContext) => {
    const result = route.handler({
      params: validate.params(input.params),
      query: validate.query(input.query),
      body: validate.body(input.body),
      request: input.request,
      ...(route.webSocket ? { upgrade: (data: SocketHandlers) => input.server?.upgrade(input.request, { data }) ?? false } : {}),
    } as HandlerInput);
    const answered = answer(result, input.request, status);
    // Mapped here: in a compiled build Elysia does not pass such a rejection to onError, and Bun's own
    // error handler answered 500 instead of the mapped status.
    return answered instanceof Promise ? answered.catch((error: unknown) => errorResponse(mapError("UNKNOWN", error, input.request, logger))) : answered;
  };
  // Written as blocks with a named result: Elysia takes any handler whose source reads like
  // `=> call(` or `return call(` for async and awaits it on every request. A promise returned from
  // a synchronous-looking handler is still awaited; its rejection is mapped in `run`.
  if (route.webSocket) {
    return ({ params, query, request, server }) => {
      const result = run({ params, query, request, server });
      return result;
    };
  }
  if (route.params || route.query || route.method !== "GET") {
    return ({ params, query, body, request }) => {
      const result = run({ params, query, body, request });
      return result;
    };
  }
  return ({ request }) => {
    const result = run({ request });
    return result;
  };
}

export function createHttpApp(deps: HttpAppDeps) {
  const { refusals } = deps;
  const access = routeAccess(deps.routes);
  const app = new Elysia()
    .onRequest(({ request, server }) => {
      deps.checkHost?.(request);
      checkAccess(request, server, deps.tokens, access);
    })
    .onError(({ code, error, request, server, set }) => {
      const mapped = mapError(code, error, request, deps.logger);
      if (mapped.status === 401 || mapped.status === 403) {
        const address = server?.requestIP(request)?.address ?? "unknown";
        refusals.refused(address, { status: mapped.status, method: request.method, path: pathOf(request.url) });
      }
      // For the request log below: Elysia leaves `set.status` as it was before the error.
      set.status = mapped.status;
      return errorResponse(mapped);
    });

  // Registered only when kept: a hook on every request costs throughput.
  if (deps.logger.enabled("debug")) {
    app.onAfterResponse(({ request, set, responseValue }) => {
      // A route that returns a Response (a mapped rejection, an event stream) sets its own status.
      const status = responseValue instanceof Response ? responseValue.status : set.status;
      deps.logger.debug("request", { method: request.method, path: pathOf(request.url), status });
    });
  }

  for (const route of allRoutes(deps.routes, deps.version, deps.eventPayloads)) {
    const handler = elysiaHandler(route, deps.logger);
    if (route.method !== "GET") {
      app.route(route.method, route.path, handler, { parse: route.rawBody ? "none" : jsonBodyParser(route.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES) });
      continue;
    }
    app.route("GET", route.path, handler);
    // HEAD is answered as GET, and Bun sends that answer's status and headers without its body (a
    // stream it cancels). Elysia's own HEAD read the whole body to count it, an event stream's forever.
    app.route("HEAD", route.path, handler);
  }
  return app;
}

/**
 * The app as the handler of a socket that already listens (the early listener's): Elysia's handler,
 * compiled now, with the socket as the server its requests see (their peer address comes from it).
 */
export function serveOn(app: ReturnType<typeof createHttpApp>, server: HttpServer): FullServer {
  (app as { server: HttpServer | null }).server = server;
  app.compile();
  return { fetch: (request) => app.fetch(request) };
}

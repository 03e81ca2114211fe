import { socketDispatch, type HttpServer } from "./web-socket.ts";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Logger } from "../logging/logger.ts";
import { checkAccess, pathOf, routeAccess } from "./auth-guard.ts";
import { jsonAnswer } from "./compressed-json.ts";
import { errorResponse, mapError } from "./error-mapping.ts";
import { HttpError } from "./http-error.ts";
import type { Route } from "./route.ts";
import type { RefusalLog } from "./refusal-log.ts";

export interface EarlyListenerOptions {
  host: string;
  port: number;
  /** Serve https with this certificate and key (PEM). */
  tls?: { cert: string; key: string };
  /**
   * The routes that work before the full server is ready (health and info): no parameters, no body.
   * They stay served by this handler after the hand-over: they are the most polled, and they need none
   * of the full server's machinery.
   */
  routes: Route[];
  /** Before the hand-over (a named token's use is not recorded while the database migrates). */
  tokens: AccessTokens;
  refusals: RefusalLog;
  /** The same Host check as the full server's (host-check.ts); none when absent. */
  checkHost?: (request: Request) => void;
  logger: Logger;
  /**
   * Why every other request is answered 503 now (the database migrates, or its migration failed);
   * undefined while the server is only starting, when such requests wait for it instead.
   */
  unavailableReason(): string | undefined;
}

/** The full server's request handler, given the socket at the hand-over. */
export interface FullServer {
  fetch(request: Request, server: HttpServer): Response | Promise<Response>;
}

export interface EarlyListener {
  server: HttpServer;
  /**
   * From now on every other request, and those waiting, go to the full server, on the same socket;
   * the early routes check `tokens` from now on.
   */
  handOver(full: FullServer, tokens: AccessTokens): void;
}

/**
 * Out of reach on purpose: Bun answers bodies over its own limit with a bare 413 before any handler
 * runs. Each route enforces its limit while reading (declared or chunked) and answers with {error}.
 */
const TRANSPORT_BODY_LIMIT_BYTES = Number.MAX_SAFE_INTEGER;
/** Above the SSE heartbeat interval, so quiet event streams stay open. */
const IDLE_TIMEOUT_SECONDS = 60;
/** Clients poll health while they wait; a second later is soon enough to ask again. */
const RETRY_AFTER_SECONDS = "1";

/**
 * The server's socket, bound before anything else is built, so that health answers as soon as the
 * database is open: the routes given answer as usual; every other request gets 503 with the reason
 * while the database migrates, or waits the few milliseconds until the full server takes over. The
 * hand-over points this handler at the full server on the same socket: no connection is refused. (Not
 * `server.reload`: swapping Bun's handlers made a start slower, 4 ms of CPU and 10–30 ms of wall time.)
 */
export function startEarlyListener(options: EarlyListenerOptions): EarlyListener {
  const routes = new Map(options.routes.map((route) => [`${route.method} ${route.path}`, route]));
  const access = routeAccess(options.routes);
  let handOver!: (full: FullServer) => void;
  const fullServer = new Promise<FullServer>((resolve) => (handOver = resolve));
  /** Set at the hand-over: requests go straight to it from then on. */
  let full: FullServer | undefined;
  let tokens = options.tokens;
  /** Maps what a request met to its {error} answer; refusals are logged at a bounded rate. */
  const refuse = (error: unknown, request: Request, server: HttpServer) => {
    const mapped = mapError("UNKNOWN", error, request, options.logger);
    if (mapped.status === 401 || mapped.status === 403) {
      options.refusals.refused(server.requestIP(request)?.address ?? "unknown", { status: mapped.status, method: request.method, path: pathOf(request.url) });
    }
    return errorResponse(mapped);
  };
  const debug = options.logger.enabled("debug");
  const serveRoute = async (route: Route, request: Request, server: HttpServer) => {
    let response: Response;
    try {
      options.checkHost?.(request);
      checkAccess(request, server, tokens, access);
      const result = await route.handler({ params: {}, query: {}, body: undefined, request } as Parameters<Route["handler"]>[0]);
      response = result instanceof Response ? result : jsonAnswer(result, request);
    } catch (error) {
      response = refuse(error, request, server);
    }
    // The same request log line the full server writes (app.ts), for the routes served here.
    if (debug) options.logger.debug("request", { method: request.method, path: pathOf(request.url), status: response.status });
    return response;
  };
  // Errors Bun meets itself, such as a response stream ended as failed (a dropped SSE client).
  const error = (failure: Error) => {
    options.logger.info("a response ended with an error", { error: failure.message });
    return errorResponse();
  };
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    ...(options.tls ? { tls: options.tls } : {}),
    maxRequestBodySize: TRANSPORT_BODY_LIMIT_BYTES,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    // A second server must not silently share the port.
    reusePort: false,
    // The server behaves the same from source and compiled (development mode prints errors with source).
    development: false,
    websocket: socketDispatch,
    fetch(request, server) {
      // HEAD as GET: Bun sends the answer's status and headers without its body.
      const route = routes.get(`${request.method === "HEAD" ? "GET" : request.method} ${pathOf(request.url)}`);
      if (route) return serveRoute(route, request, server);
      if (full) return full.fetch(request, server);
      try {
        options.checkHost?.(request);
        checkAccess(request, server, tokens, access);
        const reason = options.unavailableReason();
        if (reason) throw new HttpError(503, reason, { "retry-after": RETRY_AFTER_SECONDS });
      } catch (error) {
        return refuse(error, request, server);
      }
      return fullServer.then((ready) => ready.fetch(request, server));
    },
    error,
  });
  return {
    server,
    handOver(fullServer, fullTokens) {
      tokens = fullTokens;
      full = fullServer;
      handOver(fullServer);
    },
  };
}

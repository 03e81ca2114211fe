import type { Server } from "bun";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Logger } from "../logging/logger.ts";
import { checkAccess, pathOf } from "./auth-guard.ts";
import { errorResponse, mapError } from "./error-mapping.ts";
import { HttpError } from "./http-error.ts";
import type { Route } from "./route.ts";

export interface MigrationPhaseOptions {
  host: string;
  port: number;
  /** The routes that work while the database migrates (health and info): no parameters, no body. */
  routes: Route[];
  tokens: AccessTokens;
  /** The same Host check as the full server's (host-check.ts); none when absent. */
  checkHost?: (request: Request) => void;
  logger: Logger;
  /** Why every other request is answered 503 now. */
  unavailableReason(): string;
}

/** Clients poll health while they wait; a second later is soon enough to ask again. */
const RETRY_AFTER_SECONDS = "1";

/**
 * Listens while the database migrates, before the services that need the new schema exist: the
 * routes given answer as usual, everything else gets 503 with the reason. Every response closes its
 * connection, so no client holds a connection to this listener when the full server takes the port.
 */
export function serveDuringMigration(options: MigrationPhaseOptions): Server<undefined> {
  const routes = new Map(options.routes.map((route) => [`${route.method} ${route.path}`, route]));
  const closing = (response: Response) => {
    response.headers.set("connection", "close");
    return response;
  };
  return Bun.serve({
    hostname: options.host,
    port: options.port,
    reusePort: false,
    development: false,
    async fetch(request, server) {
      try {
        options.checkHost?.(request);
        checkAccess(request, server, options.tokens);
        const route = routes.get(`${request.method} ${pathOf(request.url)}`);
        if (!route) throw new HttpError(503, options.unavailableReason(), { "retry-after": RETRY_AFTER_SECONDS });
        const result = await route.handler({ params: {}, query: {}, body: undefined, request } as Parameters<Route["handler"]>[0]);
        return closing(result instanceof Response ? result : Response.json(result));
      } catch (error) {
        return closing(errorResponse(mapError("UNKNOWN", error, request, options.logger)));
      }
    },
  });
}

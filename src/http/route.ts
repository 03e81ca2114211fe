import type { Static, TSchema } from "@sinclair/typebox";
import type { SocketHandlers } from "./web-socket.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

type StaticOf<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export interface RouteContext<P, Q, B> {
  params: StaticOf<P, Record<string, never>>;
  query: StaticOf<Q, Record<string, never>>;
  body: StaticOf<B, undefined>;
  request: Request;
  /** Routes declared `webSocket`: takes the request over as a WebSocket served by `handlers`; false when it asked for no upgrade. */
  upgrade?: (handlers: SocketHandlers) => boolean;
}

/**
 * One HTTP route: its schemas (which validate requests, produce the OpenAPI document and check
 * responses in the tests) and the handler that calls the domain. Handlers parse, call and shape only.
 */
export interface Route<
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  R extends TSchema = TSchema,
> {
  method: HttpMethod;
  /** Elysia-style path, e.g. `/v1/sessions/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  successStatus?: 200 | 201 | 202 | 204;
  /** The response is `text/event-stream` rather than JSON. */
  eventStream?: boolean;
  /** A page of a list (`limit`, `cursor`): the next page's URL is in the `Link` header (http/paging.ts). */
  paged?: boolean;
  /**
   * Reached without Atrium's token (a browser coming back from a sign-in, a plugin pane in a web view,
   * an agent calling plugin tools with its session's token): the guard lets it through and the
   * handler checks the ticket it carries instead. Its answer is whatever the handler makes.
   */
  ticketed?: boolean;
  /**
   * A GET a loopback peer reaches without any Authorization header (health, so a local check tells a
   * server problem from an auth problem); with a header, the token must be right. The OpenAPI document
   * makes its token optional.
   */
  openLocally?: boolean;
  /**
   * One of the console's files (the web client at `/`): served without a token, as they hold no data,
   * and not part of the interface, so the OpenAPI document leaves it out.
   */
  publicFile?: boolean;
  /**
   * The route answers with a WebSocket (101): its handler gets `upgrade` and, once it upgraded, its
   * answer is not sent. The OpenAPI document says 101.
   */
  webSocket?: boolean;
  /** The body is handed to the handler unread (a proxied pane request), not parsed as JSON. */
  rawBody?: boolean;
  /** The media type of a raw body the OpenAPI document names as the request body (a file's bytes). */
  rawBodyType?: string;
  /** Error statuses beyond the common ones, with what each means here (502 from a plugin, 504 from a client). */
  moreErrors?: Record<string, string>;
  /**
   * Success statuses besides the main one, with the same body, for a handler that answers with a
   * Response of its own status (a subscription made anew is 201, one replaced is 200).
   */
  moreSuccesses?: Record<string, string>;
  /** The success answer's media type when it is not JSON (`text/html`, `*\/*` for what a plugin serves). */
  responseType?: string;
  /**
   * Error statuses answered with a page of `responseType` rather than {error} (a browser's return from
   * a sign-in shows why it failed), with what each means.
   */
  errorPages?: Record<string, string>;
  /** Largest accepted request body; 1 MiB unless a route needs more. */
  bodyLimitBytes?: number;
  // Method syntax on purpose: routes with different schemas must fit in one Route[] list.
  handler(context: RouteContext<P, Q, B>): Static<R> | Promise<Static<R>> | Response | Promise<Response>;
}

export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends TSchema = TSchema,
>(route: Route<P, Q, B, R>): Route<P, Q, B, R> {
  return route;
}

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** What the OpenAPI document calls a route's wildcard `*` (the rest of its path): its paths have no wildcard. */
export const WILDCARD_PARAMETER = "path";

/** `/v1/sessions/:id` → `/v1/sessions/{id}`; a trailing `*` → `{path}` */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\/\*$/, `/{${WILDCARD_PARAMETER}}`);
}

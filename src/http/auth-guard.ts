import type { AccessTokens } from "../auth/access-tokens.ts";
import { unauthorized } from "./http-error.ts";
import { isLoopbackAddress } from "../system/loopback.ts";

const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

/** A request a proxy passed on says so in one of these headers. */
export const forwardedByProxy = (request: Request): boolean => PROXY_HEADERS.some((header) => request.headers.has(header));

/**
 * A request is local when its peer is a loopback address and no proxy says it came from elsewhere: a
 * reverse proxy on the same machine connects from 127.0.0.1 on behalf of remote clients.
 */
export function isLocalRequest(request: Request, peerAddress: string | undefined): boolean {
  if (peerAddress === undefined || !isLoopbackAddress(peerAddress)) return false;
  return !forwardedByProxy(request);
}

/**
 * The token of an `Authorization: Bearer <token>` header. This runs on every request, so the common
 * spelling is checked without allocating; a token with spaces in it is left to fail verification.
 */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (!header.startsWith("Bearer ") && header.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const token = header.charCodeAt(header.length - 1) === 32 ? header.slice(7).trim() : header.slice(7).trimStart();
  return token.length > 0 ? token : undefined;
}

/** The one thing the guard needs of the server: who is on the other end. */
export interface PeerLookup {
  requestIP(request: Request): { address: string } | null;
}

/** Whether a request is for a route that checks a ticket of its own instead of Atrium's token. */
export type TicketedRoutes = (method: string, path: string) => boolean;

/** What the guard lets through without Atrium's token, read from the routes' declarations. */
export interface RouteAccess {
  ticketed?: TicketedRoutes;
  /** The paths of the GET routes a loopback peer reaches without an Authorization header (health). */
  openLocally: ReadonlySet<string>;
}

interface GuardedRoute {
  method: string;
  path: string;
  ticketed?: boolean;
  publicFile?: boolean;
  openLocally?: boolean;
}

/** HEAD is answered as GET is (app.ts), so the guard lets it through where it lets GET through. */
const methodAsRead = (method: string): string => (method === "HEAD" ? "GET" : method);

/**
 * Which requests go to a ticketed route (`:param` one segment, `*` the rest). A request that a route
 * needing the token also matches is not ticketed: the router prefers that route's fixed segments
 * (`POST …/panes/board/open` opens a pane; it is not a pane's content).
 */
function ticketedRoutes(routes: GuardedRoute[]): TicketedRoutes | undefined {
  const pattern = (route: GuardedRoute) => ({
    method: route.method,
    path: new RegExp(`^${route.path.replace(/:[A-Za-z0-9_]+/g, "[^/]+").replace(/\*$/, ".*")}$`),
  });
  const matches = (patterns: Array<ReturnType<typeof pattern>>, method: string, path: string) =>
    patterns.some((candidate) => candidate.method === method && candidate.path.test(path));
  const open = (route: GuardedRoute) => route.ticketed === true || route.publicFile === true;
  const ticketed = routes.filter(open).map(pattern);
  if (ticketed.length === 0) return undefined;
  const guarded = routes.filter((route) => !open(route)).map(pattern);
  return (method, path) => matches(ticketed, method, path) && !matches(guarded, method, path);
}

export function routeAccess(routes: GuardedRoute[]): RouteAccess {
  const ticketed = ticketedRoutes(routes);
  const openLocally = new Set(routes.filter((route) => route.openLocally && route.method === "GET").map((route) => route.path));
  return { ...(ticketed ? { ticketed } : {}), openLocally };
}

/** The path of a request URL without parsing all of it. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/**
 * Checks the bearer token of a request and throws 401 when it fails. The token is read only from the
 * Authorization header: a token in the URL would end up in logs and proxies. The one exception is a
 * local read of a route declared `openLocally` (health) with no Authorization header at all, so that a
 * health check can tell a server problem from an auth problem. Ticketed routes (route.ts) check their
 * own ticket instead; they are looked for only when the token fails, so the common request pays
 * nothing for them.
 */
export function checkAccess(request: Request, server: PeerLookup | null | undefined, tokens: AccessTokens, access: RouteAccess): void {
  const header = request.headers.get("authorization");
  // Path and peer are worked out only for the exception; this runs on every request.
  if (header === null && methodAsRead(request.method) === "GET" && access.openLocally.has(pathOf(request.url))) {
    if (isLocalRequest(request, server?.requestIP(request)?.address)) return;
  }
  const token = bearerToken(header);
  if (token !== undefined && tokens.verify(token) !== null) return;
  if (access.ticketed?.(methodAsRead(request.method), pathOf(request.url))) return;
  if (token === undefined) throw unauthorized('this request needs the header "Authorization: Bearer <token>" (see `atrium token`)');
  throw unauthorized("the bearer token is not valid");
}

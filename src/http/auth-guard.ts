import type { AccessTokens } from "../auth/access-tokens.ts";
import { unauthorized } from "./http-error.ts";

const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"];

export function isLoopbackAddress(address: string): boolean {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  return plain === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/**
 * A request is local when its peer is a loopback address and no proxy says it came from elsewhere: a
 * reverse proxy on the same machine connects from 127.0.0.1 on behalf of remote clients.
 */
export function isLocalRequest(request: Request, peerAddress: string | undefined): boolean {
  if (peerAddress === undefined || !isLoopbackAddress(peerAddress)) return false;
  return PROXY_HEADERS.every((header) => !request.headers.has(header));
}

export function bearerToken(header: string | null): string | undefined {
  if (header === null || header.length < 8 || header.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const token = header.slice(7).trim();
  return token.length > 0 && !/\s/.test(token) ? token : undefined;
}

/**
 * Checks the bearer token of a request and throws 401 when it fails. The token is read only from the
 * Authorization header: a token in the URL would end up in logs and proxies. The one exception is a
 * local `GET /v1/health` with no Authorization header at all, so that a health check can tell a
 * server problem from an auth problem.
 */
export function checkAccess(
  request: Request,
  path: () => string,
  peerAddress: () => string | undefined,
  tokens: AccessTokens,
): void {
  const header = request.headers.get("authorization");
  // Path and peer are worked out only for the one exception; this runs on every request.
  if (header === null && request.method === "GET" && path() === "/v1/health" && isLocalRequest(request, peerAddress())) return;
  const token = bearerToken(header);
  if (token === undefined) {
    throw unauthorized('this request needs the header "Authorization: Bearer <token>" (see `atrium token`)');
  }
  if (tokens.verify(token) === null) throw unauthorized("the bearer token is not valid");
}

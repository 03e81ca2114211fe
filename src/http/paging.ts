import type { PageAtCursor } from "../store/page-cursor.ts";
import { compressedJson } from "./compressed-json.ts";

/** The global event cursor a page was read at (an integer), as `GET /v1/events/cursor` gives it. */
export const EVENT_CURSOR_HEADER = "Atrium-Event-Cursor";

/**
 * A page of a list as the interface answers it: the items as a JSON array (the shape the spec gives
 * the list); unless it is the last page, a `Link` header naming the next page's URL (RFC 8288,
 * `rel="next"`), which is the same request with the page's cursor; and the event cursor it was read
 * at, so that a client can read and follow the list without asking for the cursor first.
 */
export function pageResponse(page: PageAtCursor, request: Request): Response {
  const headers: Record<string, string> = { [EVENT_CURSOR_HEADER]: String(page.eventCursor) };
  if (page.next) {
    const url = new URL(request.url);
    url.searchParams.set("cursor", page.next);
    headers.link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  // Compressed as the client asks (a page of 50 sessions: 23 KB of JSON, about 2 KB on the wire).
  return compressedJson(page.json, request, 200, headers);
}

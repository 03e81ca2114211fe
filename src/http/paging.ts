import type { SerializedPage } from "../store/page-cursor.ts";
import { compressedJson } from "./compressed-json.ts";

/**
 * A page of a list as the interface answers it: the items as a JSON array (the shape the spec gives
 * the list), and, unless it is the last page, a `Link` header naming the next page's URL
 * (RFC 8288, `rel="next"`), which is the same request with the page's cursor.
 */
export function pageResponse(page: SerializedPage, request: Request): Response {
  const headers: Record<string, string> = {};
  if (page.next) {
    const url = new URL(request.url);
    url.searchParams.set("cursor", page.next);
    headers.link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  // Compressed as the client asks (a page of 50 sessions: 23 KB of JSON, about 2 KB on the wire).
  return compressedJson(page.json, request, 200, headers);
}

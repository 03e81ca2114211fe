import type { SerializedPage } from "../store/page-cursor.ts";
import { compressAnswer } from "../system/compression.ts";
import { ANSWER_PREFERENCE, chooseEncoding } from "./content-encoding.ts";

/** Below this a page goes as it is: compression would save less than it costs (a page of one item). */
const COMPRESS_FROM_BYTES = 1024;

/**
 * A page of a list as the interface answers it: the items as a JSON array (the shape the spec gives
 * the list), and, unless it is the last page, a `Link` header naming the next page's URL
 * (RFC 8288, `rel="next"`), which is the same request with the page's cursor.
 */
export function pageResponse(page: SerializedPage, request: Request): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (page.next) {
    const url = new URL(request.url);
    url.searchParams.set("cursor", page.next);
    headers.link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  // Compressed as the client asks (a page of 50 sessions: 23 KB of JSON, about 2 KB on the wire).
  const encoding = page.json.length >= COMPRESS_FROM_BYTES ? chooseEncoding(request.headers.get("accept-encoding"), ANSWER_PREFERENCE) : undefined;
  if (!encoding) return new Response(page.json, { headers });
  headers["content-encoding"] = encoding;
  headers.vary = "accept-encoding";
  return new Response(compressAnswer(page.json, encoding), { headers });
}

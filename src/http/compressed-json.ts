import { COMPRESS_FROM_BYTES, compressAnswer } from "../system/compression.ts";
import { ANSWER_PREFERENCE, chooseEncoding } from "./content-encoding.ts";

/**
 * An answer's JSON, compressed as the request's Accept-Encoding asks when it is 1 KiB or more (zstd 1
 * first, then gzip 6, then brotli 4: see content-encoding.ts), with the headers a cache needs.
 */
export function compressedJson(json: Uint8Array<ArrayBuffer>, request: Request, status = 200, headers: Record<string, string> = {}): Response {
  const all: Record<string, string> = { "content-type": "application/json", ...headers };
  const encoding = json.length >= COMPRESS_FROM_BYTES ? chooseEncoding(request.headers.get("accept-encoding"), ANSWER_PREFERENCE) : undefined;
  if (!encoding) return new Response(json, { status, headers: all });
  all["content-encoding"] = encoding;
  all.vary = "accept-encoding";
  return new Response(compressAnswer(json, encoding), { status, headers: all });
}

import { type AnswerEncoding, COMPRESS_FROM_BYTES, compressAnswer } from "../system/compression.ts";
import { ANSWER_PREFERENCE, chooseEncoding } from "./content-encoding.ts";

const utf8 = new TextEncoder();

/** Whether JSON text is 1 KiB or more of UTF-8 (one to three bytes a UTF-16 unit): counted only near the threshold. */
function reachesThreshold(json: string): boolean {
  if (json.length >= COMPRESS_FROM_BYTES) return true;
  return json.length * 3 >= COMPRESS_FROM_BYTES && Buffer.byteLength(json) >= COMPRESS_FROM_BYTES;
}

/**
 * JSON compressed as the request's Accept-Encoding asks when it is 1 KiB or more (zstd 1 first, then
 * gzip 6, then brotli 4: see content-encoding.ts), with the headers a cache needs. Text is encoded
 * only to be compressed: a small answer goes as the string it is.
 */
function respond(
  json: string | Uint8Array<ArrayBuffer>,
  large: boolean,
  request: Request,
  status: number,
  headers: Record<string, string>,
  compress = compressAnswer,
): Response {
  const all: Record<string, string> = { "content-type": "application/json" };
  for (const name in headers) all[name] = headers[name]!;
  const encoding = large ? chooseEncoding(request.headers.get("accept-encoding"), ANSWER_PREFERENCE) : undefined;
  if (!encoding) return new Response(json, { status, headers: all });
  all["content-encoding"] = encoding;
  all.vary = "accept-encoding";
  return new Response(compress(typeof json === "string" ? utf8.encode(json) : json, encoding), { status, headers: all });
}

/** JSON already serialised (a kept list, a page), compressed as the request asks from 1 KiB. */
export function compressedJson(json: Uint8Array<ArrayBuffer>, request: Request, status = 200, headers: Record<string, string> = {}): Response {
  return respond(json, json.length >= COMPRESS_FROM_BYTES, request, status, headers);
}

/** The compressed copies of JSON a service keeps until it changes, by encoding: made once each, gone with the JSON. */
const keptCopies = new WeakMap<Uint8Array, Partial<Record<AnswerEncoding, Uint8Array<ArrayBuffer>>>>();

function compressKept(json: Uint8Array<ArrayBuffer>, encoding: AnswerEncoding): Uint8Array<ArrayBuffer> {
  const copies = keptCopies.get(json) ?? {};
  keptCopies.set(json, copies);
  copies[encoding] ??= compressAnswer(json, encoding);
  return copies[encoding];
}

/** JSON a service keeps and answers many times over (the harness list): each compressed copy is made once. */
export function keptJson(json: Uint8Array<ArrayBuffer>, request: Request): Response {
  return respond(json, json.length >= COMPRESS_FROM_BYTES, request, 200, {}, compressKept);
}

/** A value as a JSON answer, compressed as the request asks from 1 KiB. */
export function jsonAnswer(value: unknown, request: Request, status = 200, headers: Record<string, string> = {}): Response {
  // A handler that returns nothing answers with no body, as Elysia did.
  const json = JSON.stringify(value) ?? "";
  return respond(json, reachesThreshold(json), request, status, headers);
}

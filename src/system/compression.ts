import type * as Zlib from "node:zlib";

/**
 * node:zlib, loaded by the first brotli compression: loading it takes about 15 ms, which a start would
 * spend before its first answer (health's answers are small, and every other encoding is Bun's own).
 */
let zlib: typeof Zlib | undefined;
const loadedZlib = (): typeof Zlib => (zlib ??= require("node:zlib") as typeof Zlib);

/** Below this a body goes as it is, file or answer: compression would save less than it costs. */
export const COMPRESS_FROM_BYTES = 1024;

/** The encodings files are sent in besides their own bytes: brotli and gzip (built into Bun and node:zlib). */
export type ContentEncoding = "br" | "gzip";

/** Answers may go zstd too (Bun's own), for the clients that take it. */
export type AnswerEncoding = ContentEncoding | "zstd";

/**
 * A file's bytes compressed, once per server (the console's files never change under a build). Brotli
 * at quality 9: the console's script in 28 ms to 72 KB, where quality 11 takes 425 ms for 67 KB, too
 * long to hold the first request that asks for it.
 */
export function compressFile(bytes: Uint8Array<ArrayBuffer>, encoding: ContentEncoding): Uint8Array<ArrayBuffer> {
  if (encoding === "gzip") return Bun.gzipSync(bytes, { level: 9 });
  const { brotliCompressSync, constants } = loadedZlib();
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

/**
 * An answer's JSON compressed as it is sent (a list page): zstd at level 1 (preferred, see
 * http/content-encoding.ts), gzip at level 6 for a client without zstd (Safari), brotli at quality 4
 * for one that takes only brotli; the files' brotli 9 would cost milliseconds a page.
 */
export function compressAnswer(bytes: Uint8Array<ArrayBuffer>, encoding: AnswerEncoding): Uint8Array<ArrayBuffer> {
  if (encoding === "zstd") return Bun.zstdCompressSync(bytes, { level: 1 }) as Uint8Array<ArrayBuffer>;
  if (encoding === "gzip") return Bun.gzipSync(bytes, { level: 6 });
  const { brotliCompressSync, constants } = loadedZlib();
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

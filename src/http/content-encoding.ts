import type { AnswerEncoding, ContentEncoding } from "../system/compression.ts";
import type { StreamEncoding } from "../events/stream-output.ts";

/**
 * Which is preferred when a client takes several as much. Files (compressed once): brotli, smaller
 * (the console's script: 72 KB against 77). Answers (compressed each time): zstd at level 1, then gzip
 * 6. For lists of sessions zstd is both smaller and cheaper (200 a page: 15 % fewer bytes than gzip at
 * a fifth of its CPU, 0.11 against 0.62 ms); for a reply's text it is 5 % larger at a quarter of the
 * CPU. Brotli 4 is last: as small as gzip for JSON at more CPU, most of it brotli's set-up.
 */
export const FILE_PREFERENCE: readonly ContentEncoding[] = ["br", "gzip"];
export const ANSWER_PREFERENCE: readonly AnswerEncoding[] = ["zstd", "gzip", "br"];

/**
 * The encoding to answer with, by the request's Accept-Encoding (RFC 9110 §12.5.3): the most wanted of
 * ours by q-value, in the order of `preference` when equal; none when none is accepted (`q=0`) or named.
 */
export function chooseEncoding<E extends AnswerEncoding>(acceptEncoding: string | null, preference: readonly E[]): E | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...parameters] = part.trim().toLowerCase().split(";");
    const q = parameters.map((parameter) => /^\s*q=([0-9.]+)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    weights.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (encoding: E) => weights.get(encoding) ?? weights.get("*") ?? 0;
  const best = Math.max(...preference.map(weight));
  return best > 0 ? preference.find((encoding) => weight(encoding) === best) : undefined;
}

/**
 * The event stream: gzip only. Flushed after every event, it keeps about 0.13 of the bytes (brotli 4
 * and zstd 3 keep 0.12 for the same CPU), and its state per connection is bounded (80 KiB, see
 * events/stream-output.ts) where brotli's and zstd's windows grow to megabytes.
 */
export const STREAM_PREFERENCE: readonly StreamEncoding[] = ["gzip"];

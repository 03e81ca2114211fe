import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** A call to another machine that did not get a usable answer: `status` is set when it answered at all. */
export class PeerCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }

  /** Whether the peer could not be reached at all (down, wrong address, no answer in time). */
  get unreachable(): boolean {
    return this.status === undefined;
  }
}

export interface PeerCall<S extends TSchema> {
  method: "GET" | "POST" | "PUT";
  path: string;
  /** The token the peer minted for this server; none for the pairing call. */
  token?: string;
  body?: unknown;
  /** The body already serialized as JSON, in place of `body` (a caller that tells its size). */
  json?: string;
  answer: S;
  timeoutMs: number;
  /** Ends the call early (the server stops). */
  signal?: AbortSignal;
}

/** Reads the `{error}` sentence of a refusal, or says what came instead. */
async function refusalOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {
    // not an Atrium answer; described below
  }
  return `it answered ${response.status} ${response.statusText}`.trim();
}

/**
 * Calls another Atrium server's HTTP interface, bounded in time, and checks the answer against the
 * schema this build expects: a peer of another version that answers otherwise is an error here, not
 * a surprise further on.
 */
export async function callPeer<S extends TSchema>(baseUrl: string, call: PeerCall<S>): Promise<Static<S>> {
  let response: Response;
  const body = call.json ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  try {
    response = await fetch(`${baseUrl}${call.path}`, {
      method: call.method,
      headers: {
        ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body,
      signal: call.signal ? AbortSignal.any([AbortSignal.timeout(call.timeoutMs), call.signal]) : AbortSignal.timeout(call.timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${call.timeoutMs / 1000} s` : (error as Error).message;
    throw new PeerCallError(`could not reach ${baseUrl}: ${reason}`);
  }
  if (!response.ok) throw new PeerCallError(await refusalOf(response), response.status);
  const answer: unknown = await response.json().catch(() => undefined);
  if (!Value.Check(call.answer, answer)) {
    throw new PeerCallError(`${baseUrl} answered ${call.method} ${call.path} with something this version does not understand`, 502);
  }
  return answer;
}

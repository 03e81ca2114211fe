import { HttpError } from "./http-error.ts";

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** The request's body, read with a byte limit (declared or chunked): 413 beyond it. */
export async function readBodyBytes(request: Request, limitBytes: number): Promise<Buffer> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limitBytes) throw tooLarge(limitBytes);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body) {
    total += chunk.byteLength;
    if (total > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The rest of the body is not read: the connection closes after the answer, or the request would stay
 * open until the client gave up (a server stopping waited its whole grace period for it).
 */
const tooLarge = (limitBytes: number) =>
  new HttpError(413, `the request body is larger than the ${Math.round(limitBytes / 1024)} KiB this route accepts`, { connection: "close" });

/**
 * Builds the body parser of a route: JSON only, read with a byte limit (chunked bodies included),
 * and an empty body passed on as `undefined` so routes without a body accept none.
 */
export function jsonBodyParser(limitBytes: number) {
  return async ({ request }: { request: Request }): Promise<unknown> => {
    const text = (await readBodyBytes(request, limitBytes)).toString("utf8");
    if (text.trim().length === 0) return undefined;
    const contentType = request.headers.get("content-type");
    if (contentType === null || !JSON_TYPE.test(contentType)) {
      throw new HttpError(400, 'the request body must be JSON sent with the header "Content-Type: application/json"');
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, `the request body is not valid JSON (${(error as Error).message})`);
    }
  };
}

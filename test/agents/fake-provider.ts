/**
 * The model provider every agent of the conformance suite is pointed at: a loopback server that fails
 * every request with HTTP 400, or in "hang" mode never answers (until switched back), and counts the
 * requests it gets. Each answer's message carries a request number, so the reply texts of two turns
 * differ and one can tell whether an earlier reply was replayed into a later one.
 */

export const PROVIDER_MARKER = "atrium-conformance-provider";

export interface FakeProvider {
  /** http://127.0.0.1:PORT, without a path. */
  readonly url: string;
  /** How many requests have arrived so far. */
  requests(): number;
  /** The distinct "METHOD /path" lines seen since the last call. */
  takePaths(): string[];
  setMode(mode: "fail" | "hang"): void;
  stop(): void;
}

function failure(request: number): Response {
  const error = { type: "invalid_request_error", code: 400, message: `${PROVIDER_MARKER}: no model here (request ${request})`, status: "INVALID_ARGUMENT" };
  return Response.json({ type: "error", error }, { status: 400 });
}

export function startFakeProvider(): FakeProvider {
  let mode: "fail" | "hang" = "fail";
  let count = 0;
  let paths = new Set<string>();
  const hung = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // a hung answer must not be cut off by the server's own idle limit
    fetch(request) {
      const number = ++count;
      paths.add(`${request.method} ${new URL(request.url).pathname}`);
      if (mode === "fail") return failure(number);
      return new Promise<Response>((resolve) => {
        const release = () => {
          hung.delete(release);
          resolve(failure(number));
        };
        hung.add(release);
        request.signal.addEventListener("abort", release);
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: () => count,
    takePaths() {
      const taken = [...paths];
      paths = new Set();
      return taken;
    },
    setMode(next) {
      mode = next;
      if (next === "fail") for (const release of [...hung]) release();
    },
    stop() {
      for (const release of [...hung]) release();
      void server.stop(true);
    },
  };
}

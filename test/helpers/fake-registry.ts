/**
 * An npm registry on loopback for the latest-version look-ups: `GET /<package>/latest` (scoped names
 * as `@scope%2fname`) answers `{name, version}`. It counts what it is asked, and can be made slow.
 */
export interface FakeRegistry {
  /** The registry URL, with its trailing slash, as npm's configuration names it. */
  url: string;
  /** The packages asked for so far, in order. */
  asked: string[];
  stop(): void;
}

export function startFakeRegistry(latest: string, options: { delayMs?: number } = {}): FakeRegistry {
  const asked: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const match = /^\/(.+)\/latest$/.exec(new URL(request.url).pathname);
      if (!match) return new Response("not found", { status: 404 });
      const name = decodeURIComponent(match[1]!);
      asked.push(name);
      if (options.delayMs) await Bun.sleep(options.delayMs);
      return Response.json({ name, version: latest });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, asked, stop: () => void server.stop(true) };
}

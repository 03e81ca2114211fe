import { AtriumServer, type ServerOptions } from "../../src/server/atrium-server.ts";
import { makeTempDir } from "./temp-dir.ts";
import { join } from "node:path";

/** How tests run this Atrium's CLI (the echo agent is `atrium acp-echo`): Bun with the entry script. */
export const ATRIUM_FROM_SOURCE = [process.execPath, join(import.meta.dir, "..", "..", "src", "main.ts")];

export interface TestServer {
  server: AtriumServer;
  url: string;
  token: string;
  dataDir: string;
  /** fetch against the server with the admin token (override headers to change that). */
  api(path: string, init?: RequestInit): Promise<Response>;
  /** JSON request helper: sends `body` as JSON, returns status and parsed body. */
  json<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Waits for the start-up work (the first harness scan appends events) and returns the event cursor. */
  ready(): Promise<number>;
  /** A new server on the same data dir (what a restart keeps); the returned one removes the dir when it stops. */
  restart(): Promise<TestServer>;
  stop(): Promise<void>;
}

/** A real Atrium server on a free loopback port with its own temp data dir. */
export async function startTestServer(options: Partial<ServerOptions> = {}, ownedDir?: ReturnType<typeof makeTempDir>): Promise<TestServer> {
  const dir = options.dataDir ? ownedDir : makeTempDir();
  const dataDir = options.dataDir ?? dir!.path;
  const server = await AtriumServer.start({
    host: "127.0.0.1",
    port: 0,
    logLevel: "debug",
    echoLogs: false,
    // Tests must not ask the real registry; the tests of the check turn it on with a fake registry.
    harnessUpdateCheck: false,
    atriumCommand: ATRIUM_FROM_SOURCE,
    // Tests wait for the first scan (ready()); they need no quiet start-up window before it.
    firstScanDelayMs: 0,
    ...options,
    dataDir,
  }).catch((error: unknown) => {
    // A start a test expects to fail leaves no data dir behind.
    dir?.remove();
    throw error;
  });
  const token = server.adminToken;
  const api = (path: string, init: RequestInit = {}) => fetch(server.url + path, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  return {
    server,
    url: server.url,
    token,
    dataDir,
    api,
    async json<T>(method: string, path: string, body?: unknown) {
      const response = await api(path, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
      });
      return { status: response.status, body: (await response.json()) as T };
    },
    async ready() {
      await server.backgroundStartup;
      const response = await api("/v1/events/cursor");
      return ((await response.json()) as { cursor: number }).cursor;
    },
    async restart() {
      await server.stop();
      return startTestServer({ ...options, dataDir }, dir);
    },
    async stop() {
      await server.stop();
      dir?.remove();
    },
  };
}

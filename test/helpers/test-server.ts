import { AtriumServer } from "../../src/server/atrium-server.ts";
import type { ServerTuning } from "../../src/server/server-options.ts";
import type { ConfigFile } from "../../src/config/config.ts";
import type { LogLevel } from "../../src/logging/logger.ts";
import { makeTempDir } from "./temp-dir.ts";
import { seedMigratedDatabase } from "./migrated-database.ts";
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
  /** A new server on the same data dir and port (what a restart keeps); the returned one removes the dir when it stops. */
  restart(): Promise<TestServer>;
  stop(): Promise<void>;
}

/** A test's server: where it keeps its data, config.json's keys, and the seams tests use. */
export interface TestServerOptions {
  dataDir?: string;
  host?: string;
  /** 0 (the default) takes a free one; a restart keeps the port it had, as a real server does. */
  port?: number;
  logLevel?: LogLevel;
  config?: ConfigFile;
  tuning?: ServerTuning;
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value);

/** `base` with `override` laid over it, nested objects merged (a test's tuning keeps the helper's). */
export function mergeOptions<T extends object>(base: T, override: T): T {
  const merged: Plain = { ...(base as Plain) };
  for (const [key, value] of Object.entries(override)) {
    const under = merged[key];
    merged[key] = isPlain(under) && isPlain(value) ? mergeOptions(under, value) : value;
  }
  return merged as T;
}

const TEST_DEFAULTS: TestServerOptions = {
  logLevel: "debug",
  // Tests must not ask the real registry, nor check for updates; the tests of those turn them on against fakes.
  config: { harnessUpdateCheck: false, updateCheckIntervalHours: 0 },
  // Tests wait for the first scan (ready()); they need no quiet start-up window before it.
  tuning: { modules: { harnesses: { atriumCommand: ATRIUM_FROM_SOURCE, firstScanDelayMs: 0 } } },
};

/** A real Atrium server on a free loopback port with its own temp data dir. */
export async function startTestServer(options: TestServerOptions = {}, ownedDir?: ReturnType<typeof makeTempDir>): Promise<TestServer> {
  const dir = options.dataDir ? ownedDir : makeTempDir();
  const dataDir = options.dataDir ?? dir!.path;
  const { host, logLevel, config, tuning } = mergeOptions(TEST_DEFAULTS, options);
  // A fresh data dir starts from the migrated schema, unless the test brings migrations of its own.
  if (!options.dataDir && !tuning?.migrations) seedMigratedDatabase(dataDir);
  const server = await AtriumServer.start({
    host: host ?? "127.0.0.1",
    port: options.port ?? 0,
    logLevel: logLevel ?? "debug",
    echoLogs: false,
    config: config ?? {},
    tuning,
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
      const port = server.port;
      await server.stop();
      return startTestServer({ ...options, dataDir, port }, dir);
    },
    async stop() {
      await server.stop();
      dir?.remove();
    },
  };
}

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { compileBinary } from "../../release/compile.ts";
import { SERVER_CPU, onCpu, startServer, tempDir, type RunningServer } from "./processes.ts";

export interface BuiltBinary {
  path: string;
  buildSeconds: number;
  remove(): void;
}

/**
 * Compiles the working tree exactly as `npm run build` does, into a temporary folder; with
 * `entrypoints`, compiles those with the same flags instead.
 */
export async function buildBinary(entrypoints?: string[]): Promise<BuiltBinary> {
  const dir = tempDir("build");
  const path = join(dir, "atrium");
  const started = performance.now();
  await compileBinary({ outfile: path, version: packageJson.version, buildNumber: 0, channel: "bench", commit: gitRevision(), entrypoints });
  return {
    path,
    buildSeconds: (performance.now() - started) / 1000,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The commit the figures belong to, marked dirty when the working tree has uncommitted changes. */
export function gitRevision(): string {
  const result = Bun.spawnSync(["git", "describe", "--always", "--dirty"], { cwd: import.meta.dir, stderr: "ignore" });
  return result.stdout.toString().trim() || "unknown";
}

/** Loopback only, at the production log level whatever the caller's environment says. */
export function atriumCommand(binary: string, port: number): string[] {
  return [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "info"];
}

/** Added to the inherited environment: the data dir is all Atrium needs to know. */
export function atriumEnv(home: string): Record<string, string> {
  return { ATRIUM_HOME: home };
}

export interface RunningAtrium {
  server: RunningServer;
  token: string;
  stop(): Promise<void>;
}

/** A config.json that keeps the server off the network: no npm lookups of harness versions, no release checks. */
export const OFFLINE_CONFIG = { harnessUpdateCheck: false, updateCheckIntervalHours: 0 };

/**
 * The compiled server on a fresh data dir and a free port, pinned to the server CPU. `env` is added
 * to its environment (the harness measurement puts fake CLIs first on its PATH); `config`, when
 * given, is its config.json.
 */
export async function startAtrium(binary: string, env: Record<string, string> = {}, config?: Record<string, unknown>): Promise<RunningAtrium> {
  const home = tempDir("home");
  if (config) writeFileSync(join(home, "config.json"), JSON.stringify(config, null, 2));
  const server = await startServer(onCpu(SERVER_CPU, atriumCommand(binary, 0)), { ...env, ...atriumEnv(home) });
  return {
    server,
    token: readFileSync(join(home, "token"), "utf8").trim(),
    stop: async () => {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

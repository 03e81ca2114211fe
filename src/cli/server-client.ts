import { readOrCreateAdminToken } from "../auth/access-tokens.ts";
import { DEFAULT_HOST, DEFAULT_PORT } from "../config/config.ts";
import { readRuntimeFile } from "../config/runtime-file.ts";
import { isLoopbackHost } from "../system/loopback.ts";
import { CliError, cliConfig, cliPaths } from "./cli-context.ts";

const REQUEST_TIMEOUT_MS = 3000;

/** The running server on this machine: where it listens (server.json, else the configured address) and the admin token. */
export interface ServerClient {
  url: string;
  /** Where other devices reach it, as the running server wrote in server.json (none when it is not running). */
  reachableUrls: string[];
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export function serverClient(): ServerClient {
  const paths = cliPaths();
  const config = cliConfig(paths);
  const runtime = readRuntimeFile(paths.runtime);
  const url = runtime?.url ?? `http://${config.host ?? DEFAULT_HOST}:${config.port ?? DEFAULT_PORT}`;
  const token = readOrCreateAdminToken(paths.adminToken);
  return {
    url,
    reachableUrls: runtime?.reachableUrls ?? [],
    async json<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        // Over https to loopback the certificate names the machine for other devices (a tailnet name),
        // not 127.0.0.1: this is the user's own server, found through their own data dir. Anywhere else
        // (a server bound to one LAN address) the certificate is checked as a browser would.
        ...(url.startsWith("https:") && isLoopbackHost(new URL(url).hostname.replace(/^\[|\]$/g, "")) ? { tls: { rejectUnauthorized: false } } : {}),
      });
      const answer = (await response.json()) as T & { error?: string };
      if (!response.ok) throw new CliError(answer.error ?? `HTTP ${response.status}`);
      return answer;
    },
  };
}

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { systemClock, type Clock, type ClockTimer } from "../clock.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import { lastLinesSuffix, spawnStdioChild, type StdioChild } from "../process/stdio-child.ts";
import type { McpTransport } from "../schemas/mcps.ts";
import { ChildStdioTransport } from "./child-stdio-transport.ts";

/** A server as a probe (or an agent) reaches it: its transport with the secret values filled in. */
export interface McpEndpoint {
  name: string;
  transport: McpTransport;
  command: string;
  args: string[];
  env: Record<string, string>;
  url: string;
  headers: Record<string, string>;
}

export interface ProbeOutcome {
  connectionState: "connected" | "failed" | "needs-authorization";
  toolCount: number;
  detail: string;
  /** The scope a 401 asked for (`WWW-Authenticate: … scope="…"`), when it did. */
  oauthScope: string;
}

export interface ProbeOptions {
  timeoutMs: number;
  children: ChildProcesses;
  /** The environment a stdio server starts with, beneath its own values. */
  baseEnv: Record<string, string | undefined>;
  cwd: string;
  version: string;
  /** Times the time limit; the system clock when absent. */
  clock?: Clock;
}

/** The most pages of tools/list a probe follows: a server that pages forever is still counted. */
const MAX_TOOL_PAGES = 50;
const STDERR_LINES_IN_DETAIL = 3;
/** How long a failed stdio probe waits to see whether the server exited. */
const EXIT_WAIT_MS = 500;

/** An HTTP answer other than success, seen by the fetch the transport used. */
interface HttpRefusal {
  status: number;
  statusText: string;
  wwwAuthenticate: string | null;
}

class ProbeTimeout extends Error {}

/**
 * Connects to the server over its own transport, asks `initialize` and `tools/list`, then closes: a
 * stdio server's process (and whatever it started) is stopped however the probe ends.
 */
export async function probeMcpServer(endpoint: McpEndpoint, options: ProbeOptions): Promise<ProbeOutcome> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const client = new Client({ name: "atrium", version: options.version }, { capabilities: {} });
  const refusals: HttpRefusal[] = [];
  let child: StdioChild | undefined;
  const clock = options.clock ?? systemClock;
  let timer: ClockTimer | undefined;
  try {
    const opened = await openTransport(endpoint, options, refusals);
    child = opened.child;
    const toolCount = await Promise.race([
      connectAndCount(client, opened.transport),
      new Promise<never>((_, reject) => {
        timer = clock.setTimeout(() => reject(new ProbeTimeout()), options.timeoutMs);
      }),
      ...(child ? [child.exited.then((code) => Promise.reject(new ExitedEarly(code)))] : []),
    ]);
    return { connectionState: "connected", toolCount, detail: "", oauthScope: "" };
  } catch (error) {
    return failure(await exitBehind(error, child), endpoint, options, refusals, child);
  } finally {
    clock.clearTimeout(timer);
    await client.close().catch(() => undefined);
    child?.stop();
  }
}

class ExitedEarly extends Error {
  constructor(readonly code: number) {
    super(`exited with code ${code}`);
  }
}

/** The connection closes before the exit is seen; the exit (and its stderr) says more than "Connection closed". */
async function exitBehind(error: unknown, child: StdioChild | undefined): Promise<unknown> {
  if (!child || error instanceof ProbeTimeout || error instanceof ExitedEarly) return error;
  const code = await Promise.race([child.exited, Bun.sleep(EXIT_WAIT_MS).then(() => undefined)]);
  return code === undefined ? error : new ExitedEarly(code);
}

async function connectAndCount(client: Client, transport: Transport): Promise<number> {
  await client.connect(transport);
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const listed = await client.listTools(cursor ? { cursor } : undefined);
    count += listed.tools.length;
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return count;
}

async function openTransport(endpoint: McpEndpoint, options: ProbeOptions, refusals: HttpRefusal[]): Promise<{ transport: Transport; child?: StdioChild }> {
  if (endpoint.transport === "stdio") {
    const codec = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    const child = spawnStdioChild({
      command: [endpoint.command, ...endpoint.args],
      cwd: options.cwd,
      env: { ...options.baseEnv, ...endpoint.env },
      children: options.children,
    });
    return { transport: new ChildStdioTransport(child, codec), child };
  }
  const watchingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (!response.ok && response.status !== 405) {
      refusals.push({ status: response.status, statusText: response.statusText, wwwAuthenticate: response.headers.get("www-authenticate") });
    }
    return response;
  };
  const url = new URL(endpoint.url);
  const requestInit = { headers: endpoint.headers };
  if (endpoint.transport === "sse") {
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    return { transport: new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: watchingFetch }, fetch: watchingFetch }) };
  }
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return { transport: new StreamableHTTPClientTransport(url, { requestInit, fetch: watchingFetch }) };
}

function failure(error: unknown, endpoint: McpEndpoint, options: ProbeOptions, refusals: HttpRefusal[], child: StdioChild | undefined): ProbeOutcome {
  const failed = (detail: string): ProbeOutcome => ({ connectionState: "failed", toolCount: 0, detail, oauthScope: "" });
  const unauthorized = refusals.find((refusal) => refusal.status === 401);
  if (unauthorized) {
    return {
      connectionState: "needs-authorization",
      toolCount: 0,
      detail: "the server answered 401 Unauthorized: sign in with POST /v1/mcps/{id}/authorize",
      oauthScope: scopeOf(unauthorized.wwwAuthenticate),
    };
  }
  const refusal = refusals.at(-1);
  if (refusal) return failed(`the server answered HTTP ${refusal.status}${refusal.statusText ? ` ${refusal.statusText}` : ""}`);
  if (error instanceof ProbeTimeout) {
    return failed(`no answer to initialize and tools/list within ${formatSeconds(options.timeoutMs)}${stderrSuffix(child)}`);
  }
  if (error instanceof ExitedEarly) return failed(`${endpoint.command} exited with code ${error.code}${stderrSuffix(child)}`);
  const message = (error as Error).message ?? String(error);
  return failed(child ? `${message}${stderrSuffix(child)}` : message);
}

function stderrSuffix(child: StdioChild | undefined): string {
  return child ? lastLinesSuffix(child.stderrTail(), STDERR_LINES_IN_DETAIL) : "";
}

/** `Bearer resource_metadata="…", scope="files:read files:write"` → `files:read files:write` */
function scopeOf(wwwAuthenticate: string | null): string {
  return wwwAuthenticate?.match(/scope="([^"]*)"/)?.[1] ?? "";
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

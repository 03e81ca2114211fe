import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { join } from "node:path";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { fixtureMcpServer } from "../fixtures/mcp-server/fixture-server.ts";

const root = join(import.meta.dir, "..", "..");
const FIXTURE_DIR = join(root, "test", "fixtures", "mcp-server");
/** Beside npm's own caches: kept across runs, never committed, removed with node_modules. */
const CACHE = join(root, "node_modules", ".cache", "atrium-test-fixtures");
let bundled: string | undefined;

/**
 * The stdio fixture and the MCP SDK it imports as one file, built once per version of its sources (and
 * of the SDK) and shared by every test file and run: a server started from it answers in half the time
 * the sources take to load.
 */
function bundledStdioFixture(): string {
  if (bundled) return bundled;
  const hash = createHash("sha256");
  for (const file of ["stdio-server.ts", "fixture-server.ts"]) hash.update(readFileSync(join(FIXTURE_DIR, file)));
  hash.update(readFileSync(join(root, "node_modules", "@modelcontextprotocol", "sdk", "package.json")));
  const file = join(CACHE, `mcp-stdio-server-${hash.digest("hex").slice(0, 16)}.js`);
  if (!existsSync(file)) {
    mkdirSync(CACHE, { recursive: true });
    // Built aside and renamed into place whole: a test file running beside this one never reads half a file.
    const partial = `${file}.partial-${process.pid}`;
    const built = Bun.spawnSync([process.execPath, "build", join(FIXTURE_DIR, "stdio-server.ts"), "--target=bun", `--outfile=${partial}`], { stderr: "pipe" });
    if (built.exitCode !== 0) throw new Error(`could not bundle the stdio MCP fixture: ${built.stderr.toString()}`);
    renameSync(partial, file);
  }
  bundled = file;
  return file;
}

/** The stdio fixture server as a command Atrium can run: Bun with the (bundled) script and its options. */
export function stdioFixtureCommand(...options: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [bundledStdioFixture(), ...options] };
}

export interface HttpMcpFixture {
  url: string;
  /** What each request to the MCP endpoint carried; `clientName` is the name an `initialize` gave. */
  requests: Array<{ authorization: string | null; clientName?: string }>;
  /** Client registrations and token grants the OAuth side made. */
  oauth: { registrations: number; tokensIssued: string[] };
  stop(): void;
}

export interface HttpMcpOptions {
  tools?: number;
  /** Every request needs a bearer token got through the fixture's own OAuth server (discovery, registration, PKCE). */
  oauth?: { scope: string };
  /** Answers every MCP request with this status instead. */
  status?: number;
  /** Never answers. */
  hang?: boolean;
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** The client's name when the request is an `initialize` (read from a copy; the transport reads the body). */
async function initializingClient(request: Request): Promise<string | undefined> {
  if (request.method !== "POST") return undefined;
  try {
    const message = (await request.clone().json()) as { method?: string; params?: { clientInfo?: { name?: string } } };
    return message.method === "initialize" ? (message.params?.clientInfo?.name ?? "unnamed") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A real Streamable HTTP MCP server on a loopback port (the SDK's web-standard server transport, one
 * server per request, stateless), optionally behind an OAuth 2.1 authorization server of its own.
 */
export function startHttpMcpServer(options: HttpMcpOptions = {}): HttpMcpFixture {
  const requests: HttpMcpFixture["requests"] = [];
  const oauth = { registrations: 0, tokensIssued: [] as string[] };
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const refreshTokens = new Set<string>();
  let origin = "";
  const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { "cache-control": "no-store" } });
  const issue = () => {
    const access = `fixture-access-${crypto.randomUUID()}`;
    const refresh = `fixture-refresh-${crypto.randomUUID()}`;
    oauth.tokensIssued.push(access);
    refreshTokens.add(refresh);
    return json({ access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: refresh, scope: options.oauth?.scope });
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // An agent's MCP client may hold its event stream open for as long as the session runs.
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (options.oauth) {
        if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
          return json({ resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: options.oauth.scope.split(" ") });
        }
        if (url.pathname === "/.well-known/oauth-authorization-server") {
          return json({
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none"],
          });
        }
        if (url.pathname === "/register" && request.method === "POST") {
          oauth.registrations++;
          const metadata = (await request.json()) as Record<string, unknown>;
          return json({ ...metadata, client_id: `client-${oauth.registrations}`, client_id_issued_at: Math.floor(Date.now() / 1000) }, 201);
        }
        if (url.pathname === "/authorize") {
          // The person approves at once: the browser goes back to the redirect with a code.
          const code = crypto.randomUUID();
          const redirectUri = url.searchParams.get("redirect_uri") ?? "";
          codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", redirectUri });
          const back = new URL(redirectUri);
          back.searchParams.set("code", code);
          back.searchParams.set("state", url.searchParams.get("state") ?? "");
          return Response.redirect(back.toString(), 302);
        }
        if (url.pathname === "/token" && request.method === "POST") {
          const form = new URLSearchParams(await request.text());
          if (form.get("grant_type") === "refresh_token") {
            if (!refreshTokens.delete(form.get("refresh_token") ?? "")) return json({ error: "invalid_grant" }, 400);
            return issue();
          }
          const pending = codes.get(form.get("code") ?? "");
          codes.delete(form.get("code") ?? "");
          const verifier = form.get("code_verifier") ?? "";
          if (!pending || pending.redirectUri !== form.get("redirect_uri") || base64url(createHash("sha256").update(verifier).digest()) !== pending.challenge) {
            return json({ error: "invalid_grant" }, 400);
          }
          return issue();
        }
      }
      if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
      const authorization = request.headers.get("authorization");
      requests.push({ authorization, clientName: await initializingClient(request) });
      if (options.hang) return new Promise<Response>(() => undefined);
      if (options.status) return new Response("refused", { status: options.status });
      if (options.oauth && !oauth.tokensIssued.some((token) => authorization === `Bearer ${token}`)) {
        return new Response("unauthorized", {
          status: 401,
          headers: { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="${options.oauth.scope}"` },
        });
      }
      const headers = Object.fromEntries(request.headers.entries());
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await fixtureMcpServer(options.tools ?? 3, () => headers).connect(transport);
      return transport.handleRequest(request);
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}/mcp`, requests, oauth, stop: () => server.stop(true) };
}

/**
 * An MCP server on the older HTTP+SSE transport (the SDK's SSEServerTransport, which speaks Node's
 * http): `GET /sse` opens the stream and names the endpoint that takes the client's messages.
 */
export async function startSseMcpServer(tools = 3): Promise<{ url: string; stop(): void }> {
  const transports = new Map<string, SSEServerTransport>();
  const server: NodeServer = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      response.on("close", () => transports.delete(transport.sessionId));
      await fixtureMcpServer(tools).connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (request.method === "POST" && url.pathname === "/messages" && transport) return transport.handlePostMessage(request, response);
    response.writeHead(404).end();
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

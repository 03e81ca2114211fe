import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Clock } from "../clock.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import type { McpAuthorization } from "../schemas/mcps.ts";
import type { McpRepository, StoredMcpServer } from "../store/mcp-repository.ts";

/** How long a started sign-in waits for its code. */
const FLOW_LIFETIME_MS = 10 * 60 * 1000;
/** A token this close to its end is refreshed before it is used. */
const REFRESH_MARGIN_MS = 60 * 1000;
/** Each request to an authorization server (discovery, registration, token): a session's start waits on a refresh. */
const OAUTH_REQUEST_TIMEOUT_MS = 10_000;
const boundedFetch = (url: string | URL, init?: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS) });

/** Tokens as kept: the server's answer and when it was had, so the expiry can be told. */
type KeptTokens = OAuthTokens & { obtainedAtMs: number };
/** The registration, with the redirect it was made for (a client that catches the code itself registers its own). */
type KeptClient = OAuthClientInformationMixed & { atriumRedirectUri: string };

interface PendingFlow {
  serverId: string;
  serverUrl: string;
  redirectUri: string;
  scope: string;
  codeVerifier: string;
  expiresAtMs: number;
}

class SignInNeeded extends Error {}

/**
 * Where the MCP SDK's OAuth client keeps what it learns about one server: the registration and
 * tokens in the server's secrets (never returned, never in an event), the PKCE verifier with the flow.
 */
class StoredOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  verifier = "";

  constructor(
    private readonly repository: McpRepository,
    private readonly serverId: string,
    private readonly redirectUri: string,
    private readonly scope: string,
    private readonly clock: Clock,
    private readonly flowState?: string,
  ) {}

  get redirectUrl(): string {
    return this.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Atrium",
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }

  state(): string {
    return this.flowState ?? "";
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const kept = readSecret<KeptClient>(this.repository, this.serverId, "client");
    return kept?.atriumRedirectUri === this.redirectUri ? kept : undefined;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    const kept: KeptClient = { ...information, atriumRedirectUri: this.redirectUri };
    this.repository.setSecret(this.serverId, "oauth", "client", JSON.stringify(kept));
  }

  tokens(): OAuthTokens | undefined {
    return readSecret<KeptTokens>(this.repository, this.serverId, "tokens");
  }

  saveTokens(tokens: OAuthTokens): void {
    const kept: KeptTokens = { ...tokens, obtainedAtMs: this.clock.now() };
    this.repository.setSecret(this.serverId, "oauth", "tokens", JSON.stringify(kept));
  }

  redirectToAuthorization(url: URL): void {
    if (this.flowState === undefined) throw new SignInNeeded("the server asks for a new sign-in");
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.repository.setSecret(this.serverId, "oauth", "tokens", null);
    if (scope === "all" || scope === "client") this.repository.setSecret(this.serverId, "oauth", "client", null);
  }
}

function readSecret<T>(repository: McpRepository, serverId: string, name: string): T | undefined {
  const value = repository.secrets(serverId, "oauth").find(([key]) => key === name)?.[1];
  return value === undefined ? undefined : (JSON.parse(value) as T);
}

/**
 * Sign-in to OAuth MCP servers by the MCP authorization spec, with the SDK's client: discovery of the
 * protected resource and its authorization server, dynamic client registration, and PKCE. A started
 * flow lives in memory for ten minutes (a restart asks the person to start again); the tokens are kept.
 */
export class McpOAuth {
  private readonly flows = new Map<string, PendingFlow>();

  constructor(private readonly deps: { repository: McpRepository; clock: Clock }) {}

  /** Registers Atrium with the server's authorization server (once per redirect) and returns the URL to open. */
  async start(server: StoredMcpServer, redirectUri: string, scope: string): Promise<McpAuthorization> {
    this.dropExpired();
    const state = crypto.randomUUID().replaceAll("-", "") + crypto.randomUUID().replaceAll("-", "");
    const provider = new StoredOAuthProvider(this.deps.repository, server.id, redirectUri, scope, this.deps.clock, state);
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    let result: string;
    try {
      result = await auth(provider, { serverUrl: server.url, scope: scope || undefined, fetchFn: boundedFetch });
    } catch (error) {
      throw new ConflictError(`${server.name}'s sign-in could not be started: ${(error as Error).message}`);
    }
    if (result === "AUTHORIZED" || !provider.authorizationUrl) throw new ConflictError(`${server.name} is signed in already; probe it again`);
    const expiresAtMs = this.deps.clock.now() + FLOW_LIFETIME_MS;
    this.flows.set(state, { serverId: server.id, serverUrl: server.url, redirectUri, scope, codeVerifier: provider.verifier, expiresAtMs });
    return { authorizationUrl: provider.authorizationUrl.toString(), state, expiresAt: new Date(expiresAtMs).toISOString() };
  }

  /** Exchanges the code the browser came back with; the flow is spent whatever the outcome. Returns the server's id. */
  async complete(state: string, code: string): Promise<string> {
    this.dropExpired();
    const flow = this.flows.get(state);
    if (!flow) throw new NotFoundError("no sign-in is waiting with this state: it was used, it expired (10 minutes), or the server restarted");
    this.flows.delete(state);
    const provider = new StoredOAuthProvider(this.deps.repository, flow.serverId, flow.redirectUri, flow.scope, this.deps.clock, state);
    provider.verifier = flow.codeVerifier;
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    try {
      await auth(provider, { serverUrl: flow.serverUrl, authorizationCode: code, scope: flow.scope || undefined, fetchFn: boundedFetch });
    } catch (error) {
      throw new ConflictError(`the sign-in's code was refused: ${(error as Error).message}`);
    }
    return flow.serverId;
  }

  /** The access token to send, refreshed when it is about to end; undefined when there is none or it cannot be refreshed. */
  async accessToken(server: StoredMcpServer): Promise<string | undefined> {
    const kept = readSecret<KeptTokens>(this.deps.repository, server.id, "tokens");
    if (!kept) return undefined;
    const endsAtMs = kept.expires_in === undefined ? Number.POSITIVE_INFINITY : kept.obtainedAtMs + kept.expires_in * 1000;
    if (endsAtMs - REFRESH_MARGIN_MS > this.deps.clock.now()) return kept.access_token;
    const client = readSecret<KeptClient>(this.deps.repository, server.id, "client");
    if (!kept.refresh_token || !client) return undefined;
    const provider = new StoredOAuthProvider(this.deps.repository, server.id, client.atriumRedirectUri, server.oauthScope, this.deps.clock);
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    try {
      await auth(provider, { serverUrl: server.url, fetchFn: boundedFetch });
    } catch {
      return undefined;
    }
    return provider.tokens()?.access_token;
  }

  /** Forgets a server's sign-in (it was removed, or its URL changed). */
  forget(serverId: string): void {
    this.deps.repository.replaceSecrets(serverId, "oauth", []);
    for (const [state, flow] of this.flows) if (flow.serverId === serverId) this.flows.delete(state);
  }

  private dropExpired(): void {
    const now = this.deps.clock.now();
    for (const [state, flow] of this.flows) if (flow.expiresAtMs <= now) this.flows.delete(state);
  }
}

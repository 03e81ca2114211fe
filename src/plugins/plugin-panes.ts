import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import { NotFoundError, UpstreamError } from "../errors.ts";
import type { OpenedPane } from "../schemas/plugins.ts";
import { PANE_SANDBOX_FLAGS } from "./pane-sandbox.ts";

export interface PaneTimings {
  /** An opened pane's URL must be loaded within this long. */
  firstUseMs: number;
  /** An open pane unused this long is closed. */
  idleMs: number;
}

export const DEFAULT_PANE_TIMINGS: PaneTimings = { firstUseMs: 60_000, idleMs: 30 * 60_000 };

interface Ticket {
  pluginId: string;
  lastUsedAt: number | null;
  openedAt: number;
}

/** Headers never passed to a plugin: Atrium's credentials and the client's cookies for Atrium. */
const WITHHELD_REQUEST_HEADERS = ["authorization", "cookie", "host", "connection", "proxy-authorization"];
/** fetch has already undone the encoding and may have changed the length. */
const DROPPED_RESPONSE_HEADERS = ["content-encoding", "content-length", "transfer-encoding", "connection"];

/** Added to everything a pane loads, wherever it is opened (an iframe, a tab, a native web view). */
const PANE_SANDBOX = `sandbox ${PANE_SANDBOX_FLAGS}`;

/**
 * An opaque origin makes a pane's own fetches and module scripts cross-origin (`Origin: null`). Any
 * origin may read pane routes: they take no cookie or token, the ticket in the path is their only authority.
 */
const ALLOW_ORIGIN_HEADER = "access-control-allow-origin";

/**
 * Open panes: each a ticket bound to one plugin and pane, which stands in for the bearer token so a
 * web view can load the pane. A ticket must be used within a minute of opening, and closes after half
 * an hour unused or when closed.
 */
export class PluginPanes {
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly deps: { clock: Clock; timings: PaneTimings }) {}

  /** A ticket for the pane; `base` is where the client reached Atrium, `panePath` the pane's page. */
  open(pluginId: string, panePath: string, base: string): OpenedPane {
    this.sweep();
    const ticket = `pt_${randomBytes(24).toString("base64url")}`;
    const now = this.deps.clock.now();
    this.tickets.set(ticket, { pluginId, lastUsedAt: null, openedAt: now });
    return {
      url: new URL(`/v1/plugins/${pluginId}/panes/${ticket}${panePath}`, base).toString(),
      ticket,
      expiresAt: new Date(now + this.deps.timings.firstUseMs).toISOString(),
    };
  }

  /** Checks a request's ticket (404 when unknown, closed or expired) and marks it used. */
  use(pluginId: string, ticket: string): void {
    this.sweep();
    const found = this.tickets.get(ticket);
    if (!found || found.pluginId !== pluginId) throw new NotFoundError("no open pane has this ticket: it expired or was closed; open the pane again");
    found.lastUsedAt = this.deps.clock.now();
  }

  close(pluginId: string, ticket: string): void {
    const found = this.tickets.get(ticket);
    if (!found || found.pluginId !== pluginId) throw new NotFoundError(`plugin ${pluginId} has no open pane with this ticket`);
    this.tickets.delete(ticket);
  }

  /** Closes every pane of a plugin (it was uninstalled). */
  closeAll(pluginId: string): void {
    for (const [ticket, found] of this.tickets) if (found.pluginId === pluginId) this.tickets.delete(ticket);
  }

  count(pluginId: string): number {
    this.sweep();
    let open = 0;
    for (const found of this.tickets.values()) if (found.pluginId === pluginId) open++;
    return open;
  }

  private sweep(): void {
    const now = this.deps.clock.now();
    const { firstUseMs, idleMs } = this.deps.timings;
    for (const [ticket, found] of this.tickets) {
      const expired = found.lastUsedAt === null ? now - found.openedAt >= firstUseMs : now - found.lastUsedAt >= idleMs;
      if (expired) this.tickets.delete(ticket);
    }
  }
}

/** Forwards a pane's request to the plugin's own server, without Atrium's token or cookies. */
export async function proxyToPlugin(request: Request, port: number, path: string): Promise<Response> {
  const incoming = new URL(request.url);
  const headers = new Headers(request.headers);
  for (const name of WITHHELD_REQUEST_HEADERS) headers.delete(name);
  let upstream: Response;
  try {
    upstream = await fetch(`http://127.0.0.1:${port}/${path}${incoming.search}`, {
      method: request.method,
      headers,
      body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
      redirect: "manual",
    });
  } catch (error) {
    // The process went away between the state check and the request: the route's 502, not a server fault.
    throw new UpstreamError(`the plugin did not answer: ${(error as Error).message}`);
  }
  const answer = new Headers(upstream.headers);
  for (const name of DROPPED_RESPONSE_HEADERS) answer.delete(name);
  // Appended: a policy of the plugin's own stays, and both apply.
  answer.append("content-security-policy", PANE_SANDBOX);
  answer.set(ALLOW_ORIGIN_HEADER, "*");
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: answer });
}

/** The answer to the CORS preflight of a pane's own request (a POST with a JSON body, a custom header). */
export function panePreflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      [ALLOW_ORIGIN_HEADER]: "*",
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "",
      "access-control-max-age": "600",
      vary: "access-control-request-headers",
    },
  });
}

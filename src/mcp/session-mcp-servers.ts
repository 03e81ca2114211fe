import type * as acp from "@agentclientprotocol/sdk";
import type { McpTransport, SessionMcpServer } from "../schemas/mcps.ts";
import type { ReachableMcpServer } from "./mcp-service.ts";

/** What a session's agent is given at session/new or session/load, and the record of it. */
export interface SessionMcpGrant {
  servers: acp.McpServer[];
  /** Each server on here: given, or left out with the reason. */
  record: SessionMcpServer[];
}

/** Why an agent will not use a server of this transport here, when it will not. */
export type McpCaveat = (transport: McpTransport) => string | undefined;

const pairs = (values: Record<string, string>) => Object.entries(values).map(([name, value]) => ({ name, value }));

/**
 * The servers in ACP's `mcpServers` form. stdio every agent must take; `http` and `sse` only when the
 * agent's `mcpCapabilities` says so. An OAuth server nobody signed in to is left out (its tools would
 * only fail), and so is a transport the agent does not take: both are named in the record. When the
 * agent is known not to use what it is given (`caveat`: Gemini in a folder it does not trust, Copilot
 * CLI with stdio servers), the servers are still given — a later version may — and the record says why.
 */
export function sessionMcpGrant(
  reachable: ReachableMcpServer[],
  capabilities: acp.McpCapabilities | undefined,
  caveat: McpCaveat = () => undefined,
): SessionMcpGrant {
  const servers: acp.McpServer[] = [];
  const record: SessionMcpServer[] = [];
  for (const { id, endpoint, needsSignIn } of reachable) {
    const entry = { id, name: endpoint.name, transport: endpoint.transport };
    let reason: string | null = null;
    if (needsSignIn) reason = "it needs a sign-in first (POST /v1/mcps/{id}/authorize)";
    else if (endpoint.transport !== "stdio" && capabilities?.[endpoint.transport] !== true) {
      reason = `the agent does not take ${endpoint.transport} MCP servers (its mcpCapabilities.${endpoint.transport} is not true)`;
    }
    record.push({ ...entry, given: reason === null, reason: reason ?? caveat(endpoint.transport) ?? null });
    if (reason !== null) continue;
    if (endpoint.transport === "stdio") {
      servers.push({ name: endpoint.name, command: endpoint.command, args: endpoint.args, env: pairs(endpoint.env) });
    } else {
      servers.push({ type: endpoint.transport, name: endpoint.name, url: endpoint.url, headers: pairs(endpoint.headers) });
    }
  }
  return { servers, record };
}

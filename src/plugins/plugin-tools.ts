import { randomBytes } from "node:crypto";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";
import { InvalidInputError, UpstreamError } from "../errors.ts";
import type { ReachableMcpServer } from "../mcp/mcp-service.ts";
import type { PluginManifest } from "../schemas/plugins.ts";

type PluginToolSpec = PluginManifest["tools"][number];

/** A tool call the plugin does not answer within this long fails. */
const TOOL_TIMEOUT_MS = 120_000;
/** Where Atrium serves the running plugins' tools to its own sessions' agents (MCP over Streamable HTTP). */
export const PLUGIN_TOOLS_MCP_PATH = "/v1/plugins/mcp";
/** Tool names as an agent sees them: `<pluginId>__<tool>`. */
const SEPARATOR = "__";

/** Checks a tool's input against its inputSchema (with the MCP SDK's JSON Schema validator): 400 naming the field. */
export async function checkToolInput(tool: PluginToolSpec, input: unknown): Promise<void> {
  const { AjvJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/ajv");
  const result = new AjvJsonSchemaValidator().getValidator(tool.inputSchema as JsonSchemaType)(input);
  if (!result.valid)
    throw new InvalidInputError(`the input of tool ${tool.name} is invalid: ${result.errorMessage ?? "it does not match the tool's inputSchema"}`);
}

/** POSTs the input to the tool's path on the plugin's server and answers with what it answered. */
export async function callPluginTool(port: number, tool: PluginToolSpec, input: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${port}${tool.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(TOOL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new UpstreamError(`the plugin did not answer tool ${tool.name}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) throw new UpstreamError(`the plugin answered tool ${tool.name} with HTTP ${response.status}: ${text.slice(0, 500)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What Atrium's MCP endpoint offers: the tools of the enabled, running plugins, and a way to call one. */
export interface PluginToolCatalog {
  tools(): Array<{ pluginId: string; tool: PluginToolSpec }>;
  callTool(pluginId: string, toolName: string, input: unknown): Promise<unknown>;
}

/**
 * Atrium as an MCP server over Streamable HTTP (the SDK's server classes, stateless), so an agent can
 * call plugins' tools. Each session's agent gets a token of its own; Atrium's token is never handed out.
 */
export class PluginToolServer {
  private readonly tokens = new Map<string, string>();

  constructor(private readonly catalog: PluginToolCatalog) {}

  /** The bearer token a session's agent reaches the endpoint with (the same for the session while the server runs). */
  tokenFor(sessionId: string): string {
    for (const [token, owner] of this.tokens) if (owner === sessionId) return token;
    const token = `apt_${randomBytes(24).toString("base64url")}`;
    this.tokens.set(token, sessionId);
    return token;
  }

  /** The endpoint as an MCP server for a session's agent, when a running plugin has tools. */
  serverFor(sessionId: string, serverUrl: string): ReachableMcpServer | undefined {
    if (this.catalog.tools().length === 0) return undefined;
    return {
      id: "atrium-plugins",
      endpoint: {
        name: "atrium-plugins",
        transport: "http",
        url: `${serverUrl}${PLUGIN_TOOLS_MCP_PATH}`,
        headers: { Authorization: `Bearer ${this.tokenFor(sessionId)}` },
        command: "",
        args: [],
        env: {},
      },
      needsSignIn: false,
    };
  }

  /** Whether a bearer token is one a session's agent was given. */
  accepts(token: string | undefined): boolean {
    return token !== undefined && this.tokens.has(token);
  }

  /** Serves one MCP request (the caller has checked its token with `accepts`). */
  async handle(request: Request): Promise<Response> {
    const [{ Server }, { WebStandardStreamableHTTPServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    const server = new Server({ name: "atrium-plugins", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.catalog.tools().map(({ pluginId, tool }) => ({
        name: `${pluginId}${SEPARATOR}${tool.name}`,
        description: tool.description,
        inputSchema: { type: "object" as const, ...tool.inputSchema },
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
      const cut = params.name.indexOf(SEPARATOR);
      try {
        const result = await this.catalog.callTool(params.name.slice(0, cut), params.name.slice(cut + SEPARATOR.length), params.arguments ?? {});
        return { content: [{ type: "text" as const, text: typeof result === "string" ? result : JSON.stringify(result) }] };
      } catch (error) {
        return { content: [{ type: "text" as const, text: (error as Error).message }], isError: true };
      }
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  }
}

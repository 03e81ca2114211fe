import { Type } from "@sinclair/typebox";
import type { McpService } from "../../mcp/mcp-service.ts";
import {
  CreateMcpServerBody,
  McpAuthorization,
  McpAuthorizeBody,
  McpCompleteAuthorizationBody,
  McpMachineState,
  McpMachineStateBody,
  McpServer,
  McpServerList,
  UpdateMcpServerBody,
} from "../../schemas/mcps.ts";
import { defineRoute } from "../route.ts";

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
const CallbackQuery = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 256 }),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
});
const MCP_OAUTH_CALLBACK_PATH = "/v1/mcps/oauth/callback";

export function mcpRoutes(mcps: McpService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/mcps",
      tag: "mcps",
      summary: "Every MCP server an agent on this machine sees: those made here, then each harness's own (read-only)",
      response: McpServerList,
      handler: () => ({ servers: mcps.list() }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/mcps",
      tag: "mcps",
      summary: "Add an MCP server: given to every session on machines where it is on; probed at once",
      description:
        "Header and environment values are kept on this machine (0600) and never returned. 409 when a server of that name exists. " +
        "A stdio command is run without a shell; URLs are http(s); no field may carry Atrium's own token.",
      body: CreateMcpServerBody,
      response: McpServer,
      successStatus: 201,
      handler: ({ body }) => mcps.create(body),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/mcps/oauth/complete",
      tag: "mcps",
      summary: "Finish an OAuth sign-in whose code the client caught itself (it gave its own redirectUri)",
      body: McpCompleteAuthorizationBody,
      response: McpServer,
      handler: ({ body }) => mcps.completeAuthorization(body.state, body.code),
    }),
    defineRoute({
      method: "GET",
      path: MCP_OAUTH_CALLBACK_PATH,
      tag: "mcps",
      summary: "Where the browser returns from an MCP server's sign-in; the flow's one-time state stands in for the token",
      query: CallbackQuery,
      response: Type.String(),
      responseType: "text/html",
      errorPages: { "409": "The sign-in was refused, or could not be finished: a page saying why." },
      ticketed: true,
      handler: async ({ query }) => {
        if (query.error || !query.code) {
          return page(409, "Sign-in refused", `The server's sign-in answered: ${query.error_description || query.error || "no code"}.`);
        }
        try {
          const server = await mcps.completeAuthorization(query.state, query.code);
          return page(200, "Signed in", `${server.name} is signed in (${server.connectionState}). You can close this page.`);
        } catch (error) {
          return page(409, "Sign-in not finished", (error as Error).message);
        }
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/mcps/:id",
      tag: "mcps",
      summary: "One MCP server",
      params: IdParams,
      response: McpServer,
      handler: ({ params }) => mcps.get(params.id),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/mcps/:id",
      tag: "mcps",
      summary: "Change an MCP server made here (409 for a harness's own); probed again",
      description:
        "`headers` and `environment` are the whole set of names: a value sets one, null keeps the stored value, a name left out is removed; " +
        "leave the field out to keep them all. A new URL or authType forgets the OAuth sign-in.",
      params: IdParams,
      body: UpdateMcpServerBody,
      response: McpServer,
      handler: ({ params, body }) => mcps.update(params.id, body),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/mcps/:id",
      tag: "mcps",
      summary: "Remove an MCP server made here, with its secrets and sign-in; answers with the servers that remain",
      params: IdParams,
      response: McpServerList,
      handler: ({ params }) => ({ servers: mcps.remove(params.id) }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/mcps/:id/machine-state",
      tag: "mcps",
      summary: "Whether the server is on on this machine",
      params: IdParams,
      response: McpMachineState,
      handler: ({ params }) => mcps.machineState(params.id),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/mcps/:id/machine-state",
      tag: "mcps",
      summary: "Turn a server off (or on again) on this machine only; sessions started here from now on follow",
      params: IdParams,
      body: McpMachineStateBody,
      response: McpMachineState,
      handler: ({ params, body }) => mcps.setDisabledHere(params.id, body.disabledHere),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/mcps/:id/probe",
      tag: "mcps",
      summary: "Connect now (initialize, tools/list) and answer with what was found; a harness's own servers too",
      params: IdParams,
      response: McpServer,
      handler: ({ params }) => mcps.probe(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/mcps/:id/authorize",
      tag: "mcps",
      summary: "Start an OAuth server's sign-in (discovery, dynamic client registration, PKCE) and get the URL to open",
      description:
        "The browser comes back to GET /v1/mcps/oauth/callback at the address this request came to, which finishes the sign-in and probes " +
        "the server; a client that gives its own `redirectUri` finishes it with POST /v1/mcps/oauth/complete. The flow lasts 10 minutes.",
      params: IdParams,
      body: McpAuthorizeBody,
      response: McpAuthorization,
      handler: ({ params, body, request }) => mcps.authorize(params.id, body.redirectUri ?? new URL(MCP_OAUTH_CALLBACK_PATH, request.url).toString()),
    }),
  ];
}

/** The page the browser shows when it comes back from a sign-in: plain text, no script. */
function page(status: number, title: string, message: string): Response {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${Bun.escapeHTML(title)}</title></head><body><h1>${Bun.escapeHTML(title)}</h1><p>${Bun.escapeHTML(message)}</p></body></html>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": "default-src 'none'", "cache-control": "no-store" },
  });
}

import { Type } from "@sinclair/typebox";
import type { PluginService } from "../../plugins/plugin-service.ts";
import { PLUGIN_TOOLS_MCP_PATH, type PluginToolServer } from "../../plugins/plugin-tools.ts";
import {
  ApplyPluginUpdateBody,
  DiscoverPluginBody,
  EnablePluginBody,
  InstallPluginBody,
  OpenedPane,
  Plugin,
  PluginDiscovery,
  PluginList,
  PluginUpdatePlan,
} from "../../schemas/plugins.ts";
import { bearerToken } from "../auth-guard.ts";
import { unauthorized } from "../http-error.ts";
import { defineRoute, type HttpMethod } from "../route.ts";

const Id = Type.String({ minLength: 1, maxLength: 64 });
const PluginParams = Type.Object({ pluginId: Id });
const PaneParams = Type.Object({ pluginId: Id, pane: Type.String({ minLength: 1, maxLength: 128 }) });
const PaneContentParams = Type.Object({
  pluginId: Id,
  pane: Type.String({ minLength: 1, maxLength: 128 }),
  "*": Type.String({ description: "The rest of the path, what the pane asked its plugin for (it may hold `/`)." }),
});
const NOT_RUNNING = { "502": "The plugin is not running (the message names its state and how to restart it), or did not answer." };
const ToolParams = Type.Object({ pluginId: Id, name: Type.String({ minLength: 1, maxLength: 64 }) });

export function pluginRoutes(plugins: PluginService, toolServer: PluginToolServer) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/plugins",
      tag: "plugins",
      summary: "Installed plugins with their state and open pane count (endpoint 17)",
      response: PluginList,
      handler: () => ({ plugins: plugins.list() }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/discover-remote",
      tag: "plugins",
      summary: "Read a plugin's manifest from a git URL or a local folder without installing or running anything (endpoint 18)",
      description: "`consentKey` is a digest of everything installing consents to; install with it. 400 names a manifest field that is wrong.",
      body: DiscoverPluginBody,
      response: PluginDiscovery,
      handler: ({ body }) => plugins.discover(body.source),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/install",
      tag: "plugins",
      summary: "Install a plugin consented to: its setup commands run, then its process starts",
      description:
        "409 when the plugin changed since the consent (the key differs), the server is older than its minServiceVersion, a program it needs " +
        "is missing (named, with its install hint), it is installed already, or a setup command failed (nothing is left behind). Progress: " +
        "`plugin.install.progress` events; each command's output is a terminal log (GET /v1/terminals/{id}).",
      body: InstallPluginBody,
      response: Plugin,
      successStatus: 201,
      handler: ({ body }) => plugins.install(body.source, body.consentKey),
    }),
    ...(["POST", "GET", "DELETE"] as HttpMethod[]).map((method) =>
      defineRoute({
        method,
        path: PLUGIN_TOOLS_MCP_PATH,
        tag: "plugins",
        summary: `MCP over Streamable HTTP (${method}) for sessions' agents: the running plugins' tools, reached with a session's own token`,
        response: Type.Unknown(),
        ticketed: true,
        rawBody: true,
        handler: ({ request }) => {
          if (!toolServer.accepts(bearerToken(request.headers.get("authorization")))) throw unauthorized("this endpoint needs a session's plugin-tools token");
          return toolServer.handle(request);
        },
      }),
    ),
    defineRoute({
      method: "GET",
      path: "/v1/plugins/:pluginId",
      tag: "plugins",
      summary: "One plugin",
      params: PluginParams,
      response: Plugin,
      handler: ({ params }) => plugins.get(params.pluginId),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/plugins/:pluginId",
      tag: "plugins",
      summary: "Enable (its process starts) or disable (its process stops) a plugin",
      params: PluginParams,
      body: EnablePluginBody,
      response: Plugin,
      handler: ({ params, body }) => plugins.setEnabled(params.pluginId, body.enabled),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/plugins/:pluginId",
      tag: "plugins",
      summary: "Uninstall a plugin: its process stops, its panes close, its folders go; answers with the plugins that remain",
      params: PluginParams,
      response: PluginList,
      handler: ({ params }) => ({ plugins: plugins.remove(params.pluginId) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/restart",
      tag: "plugins",
      summary: "Start the plugin's process again, its crash count forgotten: the way out of `failed` (409 when disabled)",
      params: PluginParams,
      response: Plugin,
      handler: ({ params }) => plugins.restart(params.pluginId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/update/plan",
      tag: "plugins",
      summary: "Read the plugin's source again and say what updating would change (409 when it is up to date)",
      params: PluginParams,
      response: PluginUpdatePlan,
      handler: ({ params }) => plugins.planUpdate(params.pluginId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/update/apply",
      tag: "plugins",
      summary: "Apply a planned update (endpoint 19); the version before is kept to restore",
      description: "409 for an unknown, spent or expired plan, or when the source changed since the plan (plan again).",
      params: PluginParams,
      body: ApplyPluginUpdateBody,
      response: Plugin,
      handler: ({ params, body }) => plugins.applyUpdate(params.pluginId, body.planId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/restore",
      tag: "plugins",
      summary: "Go back to the version before the last update (409 when there is none)",
      params: PluginParams,
      response: Plugin,
      handler: ({ params }) => plugins.restore(params.pluginId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/panes/:pane/open",
      tag: "plugins",
      summary: "Open a pane (by its type): a URL a web view loads without the bearer header, good for this plugin and pane",
      description: "The URL must be loaded within a minute; it stays open while used, until DELETE or 30 minutes unused.",
      params: PaneParams,
      response: OpenedPane,
      handler: ({ params, request }) => plugins.openPane(params.pluginId, params.pane, request.url),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/plugins/:pluginId/panes/:pane",
      tag: "plugins",
      summary: "Close an open pane (by its ticket)",
      params: PaneParams,
      response: Plugin,
      handler: ({ params }) => plugins.closePane(params.pluginId, params.pane),
    }),
    ...(["GET", "POST"] as HttpMethod[]).map((method) =>
      defineRoute({
        method,
        path: "/v1/plugins/:pluginId/panes/:pane/*",
        tag: "plugins",
        summary: `${method} what an open pane loads, passed on to the plugin's process (its ticket in the path; never Atrium's token)`,
        description:
          "404 for an unknown, closed or expired ticket; 502 naming the state when the plugin is not running. The plugin's answers get " +
          "`Content-Security-Policy: sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads` (beside any policy of its " +
          "own: the pane has an opaque origin, so it cannot read Atrium's storage or the console's window) and `Access-Control-Allow-Origin: *`.",
        params: PaneContentParams,
        response: Type.Unknown(),
        responseType: "*/*",
        moreErrors: NOT_RUNNING,
        ticketed: true,
        rawBody: true,
        handler: ({ params, request }) => plugins.paneRequest(params.pluginId, params.pane, params["*"], request),
      }),
    ),
    defineRoute({
      method: "OPTIONS",
      path: "/v1/plugins/:pluginId/panes/:pane/*",
      tag: "plugins",
      summary: "The CORS preflight of an open pane's own request: a pane has an opaque origin, so its fetches are cross-origin",
      description:
        "Answered by Atrium without the token for an open pane's ticket (404 otherwise), running or not: any origin, GET and POST, the headers asked for.",
      params: PaneContentParams,
      response: Type.Null(),
      successStatus: 204,
      ticketed: true,
      rawBody: true,
      handler: ({ params, request }) => plugins.panePreflight(params.pluginId, params.pane, request),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:pluginId/tools/:name",
      tag: "plugins",
      summary: "Call a plugin's tool: the input is checked against its inputSchema (400 naming the field), then passed on",
      moreErrors: NOT_RUNNING,
      params: ToolParams,
      body: Type.Unknown(),
      response: Type.Unknown(),
      handler: ({ params, body }) => plugins.callTool(params.pluginId, params.name, body),
    }),
  ];
}

import type { McpServer } from "../../../schemas/mcps.ts";
import { api } from "../shared/api.ts";
import { listOrder, mcpPath } from "./mcp-labels.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";

/** Shows the server a call answers with, e.g. `apply(() => api<McpServer>("POST", …))`. */
export type ApplyMcp = (call: () => Promise<McpServer>) => Promise<void>;

const MCP_SERVERS: ListSource<McpServer> = {
  kinds: ["mcp.*"],
  readAll: async () => (await api<{ servers: McpServer[] }>("GET", "/v1/mcps")).servers,
  apply(event, { keep, forget }) {
    if (event.kind === "mcp.updated") keep((event.payload as { server: McpServer }).server);
    else if (event.kind === "mcp.deleted") forget((event.payload as { id: string }).id);
  },
  compare: listOrder,
  // An event still on its way for a removed server must not show it again.
  idsNeverReused: true,
};

/**
 * The MCP servers, followed live through `mcp.*`. `apply` shows what a call answers with unless the
 * stream spoke about that server while the call ran (a probe that failed at once is overtaken by its event).
 */
export function useMcpServers() {
  const { items: servers, error, keepAnswer, forget } = useLiveList(MCP_SERVERS);
  const remove = async (id: string) => {
    await api("DELETE", mcpPath(id));
    forget(id);
  };
  const apply: ApplyMcp = keepAnswer;
  return { servers, error, apply, remove };
}

import { useEffect, useRef, useState } from "preact/hooks";
import type { McpServer } from "../../schemas/mcps.ts";
import { api, failureText } from "./api.ts";
import { followEvents } from "./event-stream.ts";
import { listOrder, mcpPath } from "./mcp-labels.ts";

/** Shows the server a call answers with, e.g. `apply(() => api<McpServer>("POST", …))`. */
export type ApplyMcp = (call: () => Promise<McpServer>) => Promise<void>;

const withServer = (list: McpServer[], server: McpServer) => [...list.filter((listed) => listed.id !== server.id), server].sort(listOrder);

/**
 * The MCP servers, then `mcp.*` from the event cursor taken before the list was read, so no change made
 * in between is missed (a replayed event older than the list is followed by the newer ones).
 */
export function useMcpServers() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // How many events each server has had, to tell whether one came while a call ran.
  const updates = useRef(new Map<string, number>()).current;
  // Ids never come back: an event still on its way for a removed server must not show it again.
  const removed = useRef(new Set<string>()).current;

  const keep = (server: McpServer) => {
    if (!removed.has(server.id)) setServers((current) => withServer(current ?? [], server));
  };
  const forget = (id: string) => {
    removed.add(id);
    setServers((current) => current?.filter((listed) => listed.id !== id) ?? current);
  };

  // An answer can be older than an event that overtook it (a probe that failed at once): where the
  // stream spoke while the call ran, the stream's state stands, and the call's own change is on its way.
  const apply: ApplyMcp = async (call) => {
    const before = new Map(updates);
    const server = await call();
    if (updates.get(server.id) === before.get(server.id)) keep(server);
  };
  const remove = async (id: string) => {
    await api("DELETE", mcpPath(id));
    forget(id);
  };

  useEffect(() => {
    let stop: (() => void) | undefined;
    let left = false;
    const load = async () => {
      const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
      const list = await api<{ servers: McpServer[] }>("GET", "/v1/mcps");
      if (left) return;
      setServers(list.servers.sort(listOrder));
      stop = followEvents(`kind=mcp.*&after=${cursor}`, (event) => {
        if (event.kind === "mcp.deleted") return forget((event.payload as { id: string }).id);
        if (event.kind !== "mcp.updated") return;
        const { server } = event.payload as { server: McpServer };
        updates.set(server.id, (updates.get(server.id) ?? 0) + 1);
        keep(server);
      });
    };
    load().catch((failure: unknown) => setError(failureText(failure)));
    return () => {
      left = true;
      stop?.();
    };
  }, []);

  return { servers, error, apply, remove };
}

import type { McpConnectionState, McpTransport } from "../schemas/mcps.ts";
import type { Store } from "./database.ts";

/** A server made in Atrium, as stored; its header and environment values are kept apart (McpSecretKind). */
export interface StoredMcpServer {
  id: string;
  name: string;
  transport: McpTransport;
  command: string;
  args: string[];
  url: string;
  authType: "none" | "oauth";
  oauthScope: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** `header` and `env` are the server's values by name; `oauth` holds the sign-in (client, tokens). */
export type McpSecretKind = "header" | "env" | "oauth";

/** What the last probe on this machine found. */
export interface StoredMcpProbe {
  connectionState: McpConnectionState;
  toolCount: number;
  detail: string;
  /** The scope the server asked for in its 401, when it did. */
  oauthScope: string;
  probedAt: string | null;
}

interface ServerRow {
  id: string;
  name: string;
  transport: McpTransport;
  command: string;
  args: string;
  url: string;
  auth_type: "none" | "oauth";
  oauth_scope: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

const toServer = (row: ServerRow): StoredMcpServer => ({
  id: row.id,
  name: row.name,
  transport: row.transport,
  command: row.command,
  args: JSON.parse(row.args) as string[],
  url: row.url,
  authType: row.auth_type,
  oauthScope: row.oauth_scope,
  enabled: row.enabled === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

interface ProbeRow {
  server_id: string;
  connection_state: McpConnectionState;
  tool_count: number;
  detail: string;
  oauth_scope: string;
  probed_at: string | null;
}

const toProbe = (row: ProbeRow): StoredMcpProbe => ({
  connectionState: row.connection_state,
  toolCount: row.tool_count,
  detail: row.detail,
  oauthScope: row.oauth_scope,
  probedAt: row.probed_at,
});

const PROBE_COLUMNS = "server_id, connection_state, tool_count, detail, oauth_scope, probed_at";

const SERVER_COLUMNS = "id, name, transport, command, args, url, auth_type, oauth_scope, enabled, created_at, updated_at";

/** The MCP registry: servers, their secrets, each machine's choice and this machine's probe results. */
export class McpRepository {
  constructor(private readonly store: Store) {}

  list(): StoredMcpServer[] {
    return this.store.db.query<ServerRow, []>(`SELECT ${SERVER_COLUMNS} FROM mcp_servers ORDER BY name`).all().map(toServer);
  }

  get(id: string): StoredMcpServer | undefined {
    const row = this.store.db.query<ServerRow, [string]>(`SELECT ${SERVER_COLUMNS} FROM mcp_servers WHERE id = ?`).get(id);
    return row ? toServer(row) : undefined;
  }

  idOfName(name: string): string | undefined {
    return this.store.db.query<{ id: string }, [string]>("SELECT id FROM mcp_servers WHERE name = ?").get(name)?.id;
  }

  save(server: StoredMcpServer): void {
    this.store.db
      .query(
        `INSERT INTO mcp_servers (${SERVER_COLUMNS}) VALUES ($id, $name, $transport, $command, $args, $url, $authType, $oauthScope, $enabled, $createdAt, $updatedAt)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport, command = excluded.command, args = excluded.args,
           url = excluded.url, auth_type = excluded.auth_type, oauth_scope = excluded.oauth_scope, enabled = excluded.enabled,
           updated_at = excluded.updated_at`,
      )
      .run({ ...server, args: JSON.stringify(server.args), enabled: server.enabled ? 1 : 0 });
  }

  /** Removes the server with its secrets, machine choices and probe. */
  remove(id: string): void {
    this.store.db.query("DELETE FROM mcp_servers WHERE id = ?").run(id);
    this.store.db.query("DELETE FROM mcp_machine_state WHERE server_id = ?").run(id);
    this.store.db.query("DELETE FROM mcp_probes WHERE server_id = ?").run(id);
  }

  /** The values of one kind, in the order they were given. */
  secrets(serverId: string, kind: McpSecretKind): Array<[string, string]> {
    return this.store.db
      .query<{ name: string; value: string }, [string, string]>("SELECT name, value FROM mcp_secrets WHERE server_id = ? AND kind = ? ORDER BY position, name")
      .all(serverId, kind)
      .map((row) => [row.name, row.value]);
  }

  /** Header and environment names (never values) of every server, or of the one named, for listing. */
  secretNames(serverId?: string): Map<string, { header: string[]; env: string[] }> {
    const names = new Map<string, { header: string[]; env: string[] }>();
    const rows = this.store.db
      .query<{ server_id: string; kind: "header" | "env"; name: string }, [string | null]>(
        "SELECT server_id, kind, name FROM mcp_secrets WHERE kind IN ('header', 'env') AND (?1 IS NULL OR server_id = ?1) ORDER BY server_id, kind, position, name",
      )
      .all(serverId ?? null);
    for (const row of rows) {
      const entry = names.get(row.server_id) ?? { header: [], env: [] };
      entry[row.kind].push(row.name);
      names.set(row.server_id, entry);
    }
    return names;
  }

  /** Replaces every value of one kind. */
  replaceSecrets(serverId: string, kind: McpSecretKind, entries: Array<[string, string]>): void {
    this.store.db.query("DELETE FROM mcp_secrets WHERE server_id = ? AND kind = ?").run(serverId, kind);
    const insert = this.store.db.query("INSERT INTO mcp_secrets (server_id, kind, name, value, position) VALUES (?, ?, ?, ?, ?)");
    entries.forEach(([name, value], position) => {
      insert.run(serverId, kind, name, value, position);
    });
  }

  setSecret(serverId: string, kind: McpSecretKind, name: string, value: string | null): void {
    if (value === null) {
      this.store.db.query("DELETE FROM mcp_secrets WHERE server_id = ? AND kind = ? AND name = ?").run(serverId, kind, name);
      return;
    }
    this.store.db
      .query(
        "INSERT INTO mcp_secrets (server_id, kind, name, value) VALUES (?, ?, ?, ?) ON CONFLICT (server_id, kind, name) DO UPDATE SET value = excluded.value",
      )
      .run(serverId, kind, name, value);
  }

  /** The servers switched off on this machine. */
  disabledOn(machineId: string): Set<string> {
    const rows = this.store.db
      .query<{ server_id: string }, [string]>("SELECT server_id FROM mcp_machine_state WHERE machine_id = ? AND disabled_here = 1")
      .all(machineId);
    return new Set(rows.map((row) => row.server_id));
  }

  isDisabledOn(serverId: string, machineId: string): boolean {
    return (
      this.store.db
        .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM mcp_machine_state WHERE server_id = ? AND machine_id = ? AND disabled_here = 1")
        .get(serverId, machineId)?.n === 1
    );
  }

  setDisabledHere(serverId: string, machineId: string, disabled: boolean, at: string): void {
    this.store.db
      .query(
        `INSERT INTO mcp_machine_state (server_id, machine_id, disabled_here, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (server_id, machine_id) DO UPDATE SET disabled_here = excluded.disabled_here, updated_at = excluded.updated_at`,
      )
      .run(serverId, machineId, disabled ? 1 : 0, at);
  }

  probes(): Map<string, StoredMcpProbe> {
    return new Map(
      this.store.db
        .query<ProbeRow, []>(`SELECT ${PROBE_COLUMNS} FROM mcp_probes`)
        .all()
        .map((row) => [row.server_id, toProbe(row)]),
    );
  }

  probe(serverId: string): StoredMcpProbe | undefined {
    const row = this.store.db.query<ProbeRow, [string]>(`SELECT ${PROBE_COLUMNS} FROM mcp_probes WHERE server_id = ?`).get(serverId);
    return row ? toProbe(row) : undefined;
  }

  saveProbe(serverId: string, probe: StoredMcpProbe): void {
    this.store.db
      .query(
        `INSERT INTO mcp_probes (server_id, connection_state, tool_count, detail, oauth_scope, probed_at) VALUES ($serverId, $connectionState, $toolCount, $detail, $oauthScope, $probedAt)
         ON CONFLICT (server_id) DO UPDATE SET connection_state = excluded.connection_state, tool_count = excluded.tool_count, detail = excluded.detail,
           oauth_scope = excluded.oauth_scope, probed_at = excluded.probed_at`,
      )
      .run({ serverId, ...probe });
  }
}

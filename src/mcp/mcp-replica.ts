import type { StoredMcpServer } from "../store/mcp-repository.ts";
import type { SyncService } from "../sync/sync-service.ts";

/** The sync namespace that carries the MCP registry between paired machines; `@` keeps it from /v1/sync. */
const MCP_NAMESPACE = "@mcps";

/**
 * A server made in Atrium as it travels between machines: its definition with its header and
 * environment values. What belongs to one machine stays there: the on/off switch here, the probe's
 * findings and an OAuth sign-in (each machine signs in for itself).
 */
export interface ReplicatedMcpServer extends Omit<StoredMcpServer, "id"> {
  env: Array<[string, string]>;
  headers: Array<[string, string]>;
}

/** What the registry does with a server another machine changed (null: removed there). */
export type ApplyReplicatedServer = (id: string, server: ReplicatedMcpServer | null) => void;

/**
 * Mirrors the registry into its sync namespace, one entry per server keyed by its id, so the sync
 * replication between machines carries it with last-writer-wins and tombstones; and hands what
 * other machines changed back to the registry.
 */
export class McpReplica {
  constructor(private readonly sync: SyncService) {}

  /** Runs in the transaction that stored the server. */
  written(server: StoredMcpServer, env: Array<[string, string]>, headers: Array<[string, string]>): void {
    const { id, ...definition } = server;
    this.sync.write(MCP_NAMESPACE, id, { ...definition, env, headers } satisfies ReplicatedMcpServer);
  }

  /** Runs in the transaction that removed the server: the tombstone keeps an older copy from coming back. */
  removed(id: string): void {
    this.sync.write(MCP_NAMESPACE, id, null);
  }

  /** The servers that have an entry (those made before this build get theirs at start). */
  mirrored(): Set<string> {
    return new Set(this.sync.keys(MCP_NAMESPACE));
  }

  /** `apply` runs inside the transaction that stores another machine's change. */
  follow(apply: ApplyReplicatedServer): void {
    this.sync.observe(MCP_NAMESPACE, (entry) => apply(entry.key, entry.deleted ? null : (entry.value as ReplicatedMcpServer)));
  }
}

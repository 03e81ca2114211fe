import type { Migration } from "../migrations.ts";

export const mcpServersMigration: Migration = {
  version: 9,
  name: "MCP servers: the registry, their secrets, each machine's choice and this machine's probes",
  sql: `
    -- The account's servers, made in Atrium: what replicates between machines.
    CREATE TABLE mcp_servers (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      transport TEXT NOT NULL,
      command TEXT NOT NULL DEFAULT '',
      args TEXT NOT NULL DEFAULT '[]',
      url TEXT NOT NULL DEFAULT '',
      auth_type TEXT NOT NULL DEFAULT 'none',
      oauth_scope TEXT NOT NULL DEFAULT '',
      enabled INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    -- Header and environment values, and OAuth state: never returned, never in an event.
    CREATE TABLE mcp_secrets (
      server_id TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,
      -- header, env, or oauth (client, tokens)
      kind TEXT NOT NULL,
      name TEXT NOT NULL,
      value TEXT NOT NULL,
      position INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (server_id, kind, name)
    );
    -- A server off on one machine although on for the account (endpoint 16).
    CREATE TABLE mcp_machine_state (
      server_id TEXT NOT NULL,
      machine_id TEXT NOT NULL,
      disabled_here INTEGER NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (server_id, machine_id)
    );
    -- What the last probe on this machine found, for managed servers and the harnesses' own.
    CREATE TABLE mcp_probes (
      server_id TEXT PRIMARY KEY,
      connection_state TEXT NOT NULL,
      tool_count INTEGER NOT NULL DEFAULT 0,
      detail TEXT NOT NULL DEFAULT '',
      oauth_scope TEXT NOT NULL DEFAULT '',
      probed_at TEXT
    );
  `,
};

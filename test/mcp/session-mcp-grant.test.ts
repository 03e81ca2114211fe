import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copilot } from "../../src/harness/definitions/copilot.ts";
import { gemini } from "../../src/harness/definitions/gemini.ts";
import type { McpEndpoint } from "../../src/mcp/mcp-probe.ts";
import type { ReachableMcpServer } from "../../src/mcp/mcp-service.ts";
import { sessionMcpGrant } from "../../src/mcp/session-mcp-servers.ts";
import type { McpTransport } from "../../src/schemas/mcps.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// What the real agents showed (test/agents): Gemini CLI starts no MCP server in a folder it does not
// trust, Copilot CLI never starts a stdio one. Both are still given them; the record says why they go unused.

const home = makeTempDir("atrium-mcp-grant-");
afterAll(() => home.remove());

function reachable(name: string, transport: McpTransport, needsSignIn = false): ReachableMcpServer {
  const endpoint: McpEndpoint =
    transport === "stdio"
      ? { name, transport, command: "/bin/server", args: ["--flag"], env: { KEY: "v" }, url: "", headers: {} }
      : { name, transport, command: "", args: [], env: {}, url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t" } };
  return { id: `mcp_${name}`, endpoint, needsSignIn };
}

const servers = [reachable("local", "stdio"), reachable("remote", "http"), reachable("old", "sse"), reachable("locked", "http", true)];

describe("what a session's agent is given", () => {
  test("ACP's forms, by the agent's capabilities; a server that needs a sign-in is left out", () => {
    const grant = sessionMcpGrant(servers, { http: true });
    expect(grant.servers).toEqual([
      { name: "local", command: "/bin/server", args: ["--flag"], env: [{ name: "KEY", value: "v" }] },
      { type: "http", name: "remote", url: "https://mcp.example.com/mcp", headers: [{ name: "Authorization", value: "Bearer t" }] },
    ]);
    expect(grant.record.map((entry) => [entry.name, entry.given])).toEqual([
      ["local", true],
      ["remote", true],
      ["old", false],
      ["locked", false],
    ]);
    expect(grant.record[2]!.reason).toContain("mcpCapabilities.sse");
    expect(grant.record[3]!.reason).toContain("sign-in");
  });

  test("Gemini in a folder it does not trust: given, with the reason they go unused; trusted, no reason", () => {
    const project = join(home.path, "project");
    mkdirSync(join(home.path, ".gemini"), { recursive: true });
    const caveat = (transport: "stdio" | "http" | "sse") => gemini.mcpCaveat?.({ env: {}, home: home.path, cwd: project, transport });
    const untrusted = sessionMcpGrant(servers.slice(0, 2), { http: true }, caveat);
    expect(untrusted.servers).toHaveLength(2);
    for (const entry of untrusted.record) {
      expect(entry.given).toBe(true);
      expect(entry.reason).toContain(`Gemini starts no MCP server in a folder it does not trust: trust ${project}`);
    }
    writeFileSync(join(home.path, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    expect(sessionMcpGrant(servers.slice(0, 2), { http: true }, caveat).record.map((entry) => entry.reason)).toEqual([null, null]);
  });

  test("Copilot CLI: the stdio server is given with the reason it goes unused; the HTTP one is not marked", () => {
    const grant = sessionMcpGrant(servers.slice(0, 2), { http: true }, (transport) => copilot.mcpCaveat?.({ env: {}, home: home.path, cwd: "/", transport }));
    expect(grant.record[0]).toMatchObject({ given: true });
    expect(grant.record[0]!.reason).toContain("Copilot CLI starts no stdio MCP server");
    expect(grant.record[1]).toMatchObject({ given: true, reason: null });
  });
});

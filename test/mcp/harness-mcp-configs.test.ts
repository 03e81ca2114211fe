import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer, McpServerList } from "../../src/schemas/mcps.ts";
import { stdioFixtureCommand } from "../helpers/mcp-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Each harness's own config files in a temp HOME, in their own dialects; the fake CLIs on the PATH make
// claude, codex, gemini and opencode present (there is no qwen, so its file is not read).

const PATH = [join(import.meta.dir, "..", "fixtures", "fake-clis"), "/usr/bin", "/bin"].join(":");
const home = makeTempDir("atrium-mcp-home-");
const fixture = stdioFixtureCommand("--tools", "2");
let t: TestServer;

function write(path: string, text: string): void {
  mkdirSync(join(home.path, path, ".."), { recursive: true });
  writeFileSync(join(home.path, path), text);
}

function writeClaude(servers: Record<string, unknown>): void {
  write(".claude.json", JSON.stringify({ numStartups: 3, mcpServers: servers, projects: { "/somewhere": { mcpServers: { local: { command: "x" } } } } }));
}

beforeAll(async () => {
  writeClaude({
    "claude-files": { ...fixture, env: { TOKEN: "claude-secret" } },
    "claude-web": { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer claude-header-secret" } },
  });
  write(
    ".codex/config.toml",
    '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\nenv = { KEY = "codex-secret" }\n\n[mcp_servers.remote]\nurl = "https://mcp.example.com/mcp"\nenabled = false\n',
  );
  write(
    ".gemini/settings.json",
    JSON.stringify({
      mcpServers: { "g-http": { httpUrl: "https://mcp.example.com/mcp", headers: { X: "y" } }, "g-sse": { url: "https://mcp.example.com/sse" } },
    }),
  );
  write(
    ".config/opencode/opencode.json",
    '{\n  // servers for OpenCode, see https://opencode.ai/docs\n  "mcp": {\n    "oc-local": { "type": "local", "command": ["bun", "x.ts"], "environment": { "A": "opencode-secret" } },\n    "oc-remote": { "type": "remote", "url": "https://mcp.example.com/mcp", "enabled": false }\n  }\n}\n',
  );
  write(".qwen/settings.json", JSON.stringify({ mcpServers: { "qwen-only": { command: "x" } } }));
  t = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 }, mcps: { probeTimeoutMs: 5000 } } } });
  await t.ready();
});
afterAll(async () => {
  await t.stop();
  home.remove();
});

async function list(): Promise<McpServer[]> {
  const answer = await t.json<McpServerList>("GET", "/v1/mcps");
  expect(answer.status).toBe(200);
  assertMatchesSchema(McpServerList, answer.body);
  return answer.body.servers;
}

const summary = (server: McpServer) => `${server.kind}/${server.name}/${server.transport}/${server.enabled ? "on" : "off"}`;

describe("the harnesses' own servers", () => {
  test("are listed read-only in each harness's dialect, with names but never values", async () => {
    const servers = await list();
    expect(servers.map(summary)).toEqual([
      "claude/claude-files/stdio/on",
      "claude/claude-web/http/on",
      "codex/docs/stdio/on",
      "codex/remote/http/off",
      "gemini/g-http/http/on",
      "gemini/g-sse/sse/on",
      "opencode/oc-local/stdio/on",
      "opencode/oc-remote/http/off",
    ]);
    for (const server of servers) expect(server).toMatchObject({ canEdit: false, canRemove: false, connectionState: "disconnected" });
    const byName = Object.fromEntries(servers.map((server) => [server.name, server]));
    expect(byName["claude-files"]).toMatchObject({ command: process.execPath, environmentNames: ["TOKEN"], configPath: join(home.path, ".claude.json") });
    expect(byName["claude-web"]).toMatchObject({ url: "https://mcp.example.com/mcp", headerNames: ["Authorization"] });
    expect(byName.docs).toMatchObject({ command: "npx", args: ["-y", "docs-mcp"], environmentNames: ["KEY"] });
    expect(byName["oc-local"]).toMatchObject({ command: "bun", args: ["x.ts"], environmentNames: ["A"] });
    expect(JSON.stringify(servers)).not.toMatch(/secret/);
  });

  test("cannot be changed, removed or turned off here: 409 naming the file", async () => {
    const claudeFiles = (await list()).find((server) => server.name === "claude-files")!;
    for (const [method, path, body] of [
      ["PATCH", `/v1/mcps/${claudeFiles.id}`, { enabled: false }],
      ["DELETE", `/v1/mcps/${claudeFiles.id}`, undefined],
      ["PUT", `/v1/mcps/${claudeFiles.id}/machine-state`, { disabledHere: true }],
      ["POST", `/v1/mcps/${claudeFiles.id}/authorize`, {}],
    ] as const) {
      const answer = await t.json<{ error: string }>(method, path, body);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toContain(join(home.path, ".claude.json"));
    }
  });

  test("are probed on request with their own environment", async () => {
    const claudeFiles = (await list()).find((server) => server.name === "claude-files")!;
    const probed = await t.json<McpServer>("POST", `/v1/mcps/${claudeFiles.id}/probe`);
    expect(probed.status).toBe(200);
    assertMatchesSchema(McpServer, probed.body);
    expect(probed.body).toMatchObject({ id: claudeFiles.id, connectionState: "connected", toolCount: 2 });
    expect((await list()).find((server) => server.id === claudeFiles.id)?.connectionState).toBe("connected");
  });

  test("a changed file is read again; a broken one lists nothing of its own and the rest still answer", async () => {
    writeClaude({ renamed: { ...fixture } });
    // A later time than the first write, whatever the file system's time resolution.
    utimesSync(join(home.path, ".claude.json"), new Date(), new Date(Date.now() + 5000));
    expect((await list()).filter((server) => server.kind === "claude").map((server) => server.name)).toEqual(["renamed"]);
    write(".gemini/settings.json", "{ not json");
    const servers = await list();
    expect(servers.filter((server) => server.kind === "gemini")).toEqual([]);
    expect(servers.some((server) => server.kind === "codex")).toBe(true);
  });
});

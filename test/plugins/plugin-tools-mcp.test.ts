import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Plugin, PluginDiscovery } from "../../src/schemas/plugins.ts";
import { demoManifest, writePlugin } from "../helpers/plugin-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "../sessions/session-helpers.ts";

// A session's agent (the scripted ACP agent, with the MCP SDK's client; in this process, as what is
// tested is the MCP call over HTTP, not the agent's process) calls a plugin's tool through Atrium's own
// MCP endpoint, with the token its session was given.

const PATH = [join(import.meta.dir, "..", "..", "node_modules", ".bin"), "/usr/bin", "/bin"].join(":");
const scratch = makeTempDir("atrium-plugin-tools-");
let t: SessionTestServer;

beforeAll(async () => {
  t = await startSessionServer({ agents: "in-process", tuning: { modules: { plugins: { env: { PATH, HOME: scratch.path }, serverVersion: "1.0.0" } } } });
});
afterAll(async () => {
  await t.cleanup();
  scratch.remove();
});

async function reply(sessionId: string, text: string): Promise<string> {
  const before = (await t.detail(sessionId)).conversation.length;
  expect((await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text })).status).toBe(201);
  return lastReply(await t.until(sessionId, (detail) => idle(detail) && detail.conversation.length >= before + 2))!.text;
}

test("the agent is given Atrium's plugin-tools server with a session token, and calls a plugin's tool through it", async () => {
  const source = join(scratch.path, "demo");
  writePlugin(source, demoManifest("1.0.0"));
  const { consentKey } = (await t.json<PluginDiscovery>("POST", "/v1/plugins/discover-remote", { source })).body;
  expect((await t.json("POST", "/v1/plugins/install", { source, consentKey })).status).toBe(201);
  await until(
    async () => (await t.json<Plugin>("GET", "/v1/plugins/demo")).body.state,
    (state) => state === "running",
    20_000,
  );
  t.script({
    prompts: {
      "/mcp": [{ describeMcp: true }],
      "/add": [{ mcpCall: { server: "atrium-plugins", tool: "demo__add", arguments: { a: 20, b: 22 } } }],
      "/bad": [{ mcpCall: { server: "atrium-plugins", tool: "demo__add", arguments: { a: "twenty" } } }],
    },
    mcpCapabilities: { http: true },
  });
  const session = await t.newSession();
  const given = JSON.parse(await reply(session.id, "/mcp")) as Array<{ name: string; url: string; headers: Array<{ name: string; value: string }> }>;
  const tools = given.find((server) => server.name === "atrium-plugins")!;
  expect(tools.url).toBe(`${t.url}/v1/plugins/mcp`);
  const authorization = tools.headers.find((header) => header.name === "Authorization")!.value;
  expect(authorization).toStartWith("Bearer apt_");
  expect(authorization).not.toContain(t.token);

  expect(JSON.parse(await reply(session.id, "/add"))).toEqual({ sum: 42, version: "1.0.0" });
  expect(await reply(session.id, "/bad")).toContain("the input of tool add is invalid");
  const { session: recorded } = await t.detail(session.id);
  expect(recorded.mcpServers.find((server) => server.name === "atrium-plugins")).toMatchObject({ transport: "http", given: true, reason: null });
});

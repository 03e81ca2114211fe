import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { McpServer } from "../../src/schemas/mcps.ts";
import { Session } from "../../src/schemas/sessions.ts";
import { startHttpMcpServer, stdioFixtureCommand, type HttpMcpFixture } from "../helpers/mcp-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "../sessions/session-helpers.ts";

// The scripted ACP agent receives the servers at session/new as a real agent does, and calls their
// tools itself with the MCP SDK's client: proof that what Atrium hands over reaches a working server.
// The agents run in the test's process; the clock is the test's, so an idle stop comes when it says.

let t: SessionTestServer;
let remote: HttpMcpFixture;
let oauthRemote: HttpMcpFixture;
let unsignedRemote: HttpMcpFixture;
const clock = new ManualClock();
const IDLE_MINUTES = 30;

const PROMPTS = {
  "/mcp": [{ describeMcp: true }],
  "/env": [{ mcpCall: { server: "files", tool: "env", arguments: { name: "API_KEY" } } }],
  "/header": [{ mcpCall: { server: "remote", tool: "header", arguments: { name: "x-team" } } }],
  "/oauth": [{ mcpCall: { server: "signed-in", tool: "header", arguments: { name: "authorization" } } }],
};

beforeAll(async () => {
  t = await startSessionServer({
    agents: "in-process",
    config: { agentIdleMinutes: IDLE_MINUTES },
    tuning: { clock, modules: { mcps: { probeTimeoutMs: 5000 } } },
  });
  remote = startHttpMcpServer();
  oauthRemote = startHttpMcpServer({ oauth: { scope: "read" } });
  unsignedRemote = startHttpMcpServer({ oauth: { scope: "x" } });
});
afterAll(async () => {
  await t.cleanup();
  remote.stop();
  oauthRemote.stop();
  unsignedRemote.stop();
});

async function create(body: Record<string, unknown>): Promise<McpServer> {
  const answer = await t.json<McpServer>("POST", "/v1/mcps", body);
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
  return answer.body;
}

async function reply(sessionId: string, text: string): Promise<string> {
  const before = (await t.detail(sessionId)).conversation.length;
  const sent = await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text });
  expect(sent.status).toBe(201);
  const detail = await t.until(sessionId, (detail) => idle(detail) && detail.conversation.length >= before + 2);
  return lastReply(detail)!.text;
}

async function signIn(server: McpServer): Promise<void> {
  await until(
    async () => (await t.json<McpServer>("GET", `/v1/mcps/${server.id}`)).body.connectionState,
    (state) => state === "needs-authorization",
  );
  const started = await t.json<{ authorizationUrl: string }>("POST", `/v1/mcps/${server.id}/authorize`, {});
  const callback = (await fetch(started.body.authorizationUrl, { redirect: "manual" })).headers.get("location")!;
  expect((await fetch(callback)).status).toBe(200);
}

describe("sessions get the servers that are on here", () => {
  test("stdio with its environment, http with its headers and OAuth token; sse and off servers are not given; the session records why", async () => {
    const files = await create({ name: "files", transport: "stdio", ...stdioFixtureCommand(), environment: { API_KEY: "from-atrium" } });
    await create({ name: "remote", transport: "http", url: remote.url, headers: { "X-Team": "blue" } });
    const old = await create({ name: "old-sse", transport: "sse", url: "http://127.0.0.1:9/sse" });
    await create({ name: "off", transport: "stdio", ...stdioFixtureCommand(), enabled: false });
    const offHere = await create({ name: "off-here", transport: "stdio", ...stdioFixtureCommand() });
    await t.json("PUT", `/v1/mcps/${offHere.id}/machine-state`, { disabledHere: true });
    const oauth = await create({ name: "signed-in", transport: "http", url: oauthRemote.url, authType: "oauth" });
    const unsigned = await create({ name: "unsigned", transport: "http", url: unsignedRemote.url, authType: "oauth" });
    await signIn(oauth);

    t.script({ prompts: PROMPTS, mcpCapabilities: { http: true } });
    const session = await t.newSession();
    const given = JSON.parse(await reply(session.id, "/mcp")) as Array<{ name: string; type: string; env?: unknown; headers?: unknown }>;
    expect(given.map((server) => `${server.name}:${server.type}`).sort()).toEqual(["files:stdio", "remote:http", "signed-in:http"]);
    expect(given.find((server) => server.name === "files")?.env).toEqual([{ name: "API_KEY", value: "from-atrium" }]);

    expect(await reply(session.id, "/env")).toBe("from-atrium");
    expect(await reply(session.id, "/header")).toBe("blue");
    expect(await reply(session.id, "/oauth")).toBe(`Bearer ${oauthRemote.oauth.tokensIssued.at(-1)}`);

    const { session: recorded } = await t.detail(session.id);
    assertMatchesSchema(Session, recorded);
    const byName = Object.fromEntries(recorded.mcpServers.map((server) => [server.name, server]));
    expect(Object.keys(byName).sort()).toEqual(["files", "old-sse", "remote", "signed-in", "unsigned"]);
    expect(byName.files).toMatchObject({ id: files.id, given: true, reason: null });
    expect(byName["old-sse"]).toMatchObject({ id: old.id, transport: "sse", given: false });
    expect(byName["old-sse"]!.reason).toContain("mcpCapabilities.sse");
    expect(byName.unsigned).toMatchObject({ id: unsigned.id, given: false });
    expect(byName.unsigned!.reason).toContain("sign-in");
  });

  test("a new agent process that loads the session is given them again at session/load", async () => {
    t.script({ prompts: PROMPTS, loadSession: true, mcpCapabilities: { http: true } });
    const session = await t.newSession();
    const started = t.agents.started;
    await reply(session.id, "/mcp");
    // Stopped when idle: the next prompt starts a new agent, which loads the session.
    await clock.advance(IDLE_MINUTES * 60_000);
    const given = JSON.parse(await reply(session.id, "/mcp")) as Array<{ name: string }>;
    expect(t.agents.started).toBe(started + 2);
    expect(given.map((server) => server.name).sort()).toEqual(["files", "remote", "signed-in"]);
    // Loaded, not started afresh: the replayed history is there and no notice says otherwise.
    const { session: recorded } = await t.detail(session.id);
    expect(recorded.status ?? "").not.toContain("could not load");
    expect(
      recorded.mcpServers
        .filter((server) => server.given)
        .map((server) => server.name)
        .sort(),
    ).toEqual(["files", "remote", "signed-in"]);
  });

  test("an agent that declares no MCP capabilities gets the stdio servers only", async () => {
    t.script({ prompts: PROMPTS });
    const session = await t.newSession();
    const given = JSON.parse(await reply(session.id, "/mcp")) as Array<{ name: string }>;
    expect(given.map((server) => server.name)).toEqual(["files"]);
    const { session: recorded } = await t.detail(session.id);
    expect(recorded.mcpServers.find((server) => server.name === "remote")?.reason).toContain("mcpCapabilities.http");
  });
});

import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { McpAuthorization, McpEvents, McpMachineState, McpServer, McpServerList } from "../../src/schemas/mcps.ts";
import { stdioFixtureCommand, type HttpMcpOptions } from "../helpers/mcp-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { expectError, mcpTestServer } from "./mcp-helpers.ts";

// The registry, endpoint 16 and OAuth sign-in against a real server, with real MCP servers (the SDK's
// own server classes) over stdio and Streamable HTTP on loopback ports; the registry in a real SQLite file.

const mcp = mcpTestServer();
const { create, settled, list } = mcp;
const http = (options?: HttpMcpOptions) => mcp.http(options);

describe("the registry", () => {
  test("a stdio server is kept with its environment values, answered with names only, and probed at once", async () => {
    const cursor = await mcp.t.ready();
    const created = await create({ name: "files", transport: "stdio", ...stdioFixtureCommand("--tools", "4"), environment: { API_KEY: "s3cret-value" } });
    expect(created).toMatchObject({ kind: "managed", canEdit: true, canRemove: true, enabled: true, disabledHere: false, environmentNames: ["API_KEY"] });
    expect(["connecting", "connected"]).toContain(created.connectionState);
    const server = await settled(created.id);
    expect(server).toMatchObject({ connectionState: "connected", toolCount: 4, detail: "" });
    expect(server.probedAt).not.toBeNull();
    expect((await list()).map((each) => each.name)).toContain("files");

    const events = await replayedEvents(mcp.t, cursor);
    const updates = events.filter((event) => event.kind === "mcp.updated" && event.subjectId === created.id);
    for (const event of updates) assertMatchesSchema(McpEvents["mcp.updated"], event.payload);
    const states = updates.map((event) => (event.payload as { server: McpServer }).server.connectionState);
    expect(states).toEqual(["disconnected", "connecting", "connected"]);
    // The value is in the database file, never in an answer, an event or the log.
    const everything = JSON.stringify(events) + JSON.stringify(await list()) + readFileSync(join(mcp.t.dataDir, "logs", "atrium.log"), "utf8");
    expect(everything).not.toContain("s3cret-value");
    expect(statSync(join(mcp.t.dataDir, "atrium.db")).mode & 0o777).toBe(0o600);
  });

  test("a change keeps the values it does not name again, sets new ones, drops names left out, and probes again", async () => {
    const created = await create({ name: "api", transport: "http", url: http().url, headers: { Authorization: "Bearer one", "X-Team": "blue" } });
    const changed = await mcp.t.json<McpServer>("PATCH", `/v1/mcps/${created.id}`, { headers: { Authorization: null, "X-Region": "eu" } });
    expect(changed.status).toBe(200);
    assertMatchesSchema(McpServer, changed.body);
    expect(changed.body.headerNames).toEqual(["Authorization", "X-Region"]);
    const db = new Database(join(mcp.t.dataDir, "atrium.db"), { readonly: true });
    const stored = db.query("SELECT name, value FROM mcp_secrets WHERE server_id = ? AND kind = 'header' ORDER BY position").all(created.id);
    db.close();
    expect(stored).toEqual([
      { name: "Authorization", value: "Bearer one" },
      { name: "X-Region", value: "eu" },
    ]);
    await expectError(mcp.t.json("PATCH", `/v1/mcps/${created.id}`, { headers: { "X-New": null } }), 400, "headers.X-New");
    expect((await settled(created.id)).connectionState).toBe("connected");
  });

  test("bad input is a 400 naming the field, a second name a 409, an unknown id a 404; nothing changes", async () => {
    await create({ name: "taken", transport: "stdio", ...stdioFixtureCommand() });
    const before = await list();
    const fixture = stdioFixtureCommand();
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "no command", transport: "stdio" }), 400, "name");
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "nocommand", transport: "stdio" }), 400, "command");
    await expectError(
      mcp.t.json("POST", "/v1/mcps", { name: "ftp", transport: "http", url: "ftp://example.com/mcp" }),
      400,
      "url: must be http:// or https://",
    );
    await expectError(
      mcp.t.json("POST", "/v1/mcps", { name: "creds", transport: "http", url: "https://me:pw@example.com/mcp" }),
      400,
      "url: put credentials in headers",
    );
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "mixed", transport: "http", url: "https://example.com", ...fixture }), 400, "command");
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "oauth-stdio", transport: "stdio", ...fixture, authType: "oauth" }), 400, "authType");
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "taken", transport: "stdio", ...fixture }), 409, "named taken");
    await expectError(mcp.t.json("POST", "/v1/mcps", { name: "extra", transport: "stdio", ...fixture, shell: true }), 400, "shell");
    await expectError(mcp.t.json("PATCH", "/v1/mcps/mcp_unknown", { enabled: false }), 404, "no MCP server mcp_unknown");
    await expectError(mcp.t.json("PATCH", `/v1/mcps/${before[0]!.id}`, {}), 400, "");
    await expectError(mcp.t.json("DELETE", "/v1/mcps/mcp_unknown"), 404, "no MCP server");
    await expectError(mcp.t.json("POST", "/v1/mcps/mcp_unknown/probe"), 404, "no MCP server");
    expect(await list()).toEqual(before);
  });

  test("no field can hand a server Atrium's own token or its token file", async () => {
    const url = http().url;
    await expectError(
      mcp.t.json("POST", "/v1/mcps", { name: "leak", transport: "http", url, headers: { Authorization: `Bearer ${mcp.t.token}` } }),
      400,
      "headers.Authorization",
    );
    await expectError(
      mcp.t.json("POST", "/v1/mcps", { name: "leak", transport: "stdio", ...stdioFixtureCommand(), environment: { TOKEN: mcp.t.token } }),
      400,
      "Atrium's own access token",
    );
    const { command, args } = stdioFixtureCommand();
    await expectError(
      mcp.t.json("POST", "/v1/mcps", { name: "leak", transport: "stdio", command, args: [...args, join(mcp.t.dataDir, "token")] }),
      400,
      "token file",
    );
    const safe = await create({ name: "safe", transport: "http", url });
    await expectError(mcp.t.json("PATCH", `/v1/mcps/${safe.id}`, { url: `${url}?key=${mcp.t.token}` }), 400, "url");
    expect((await list()).map((server) => server.name)).toEqual(["safe"]);
  });

  test("a removed server is gone with its secrets; the answer is what remains", async () => {
    const kept = await create({ name: "kept", transport: "stdio", ...stdioFixtureCommand() });
    const gone = await create({ name: "gone", transport: "http", url: http().url, headers: { "X-Key": "v" } });
    const answer = await mcp.t.json<McpServerList>("DELETE", `/v1/mcps/${gone.id}`);
    expect(answer.status).toBe(200);
    assertMatchesSchema(McpServerList, answer.body);
    expect(answer.body.servers.map((server) => server.id)).toEqual([kept.id]);
    await expectError(mcp.t.json("GET", `/v1/mcps/${gone.id}`), 404, "no MCP server");
    const db = new Database(join(mcp.t.dataDir, "atrium.db"), { readonly: true });
    expect(db.query("SELECT count(*) AS n FROM mcp_secrets WHERE server_id = ?").get(gone.id)).toEqual({ n: 0 });
    expect(db.query("SELECT count(*) AS n FROM mcp_probes WHERE server_id = ?").get(gone.id)).toEqual({ n: 0 });
    db.close();
    expect(readFileSync(join(mcp.t.dataDir, "logs", "atrium.log"), "utf8")).not.toContain("could not record an MCP server's state");
  });
});

describe("endpoint 16: on for the account, off on this machine", () => {
  test("off here stops probing and says why; on again probes; the machine is info's", async () => {
    const info = (await mcp.t.json<{ machineId: string }>("GET", "/v1/info")).body;
    const server = await create({ name: "here", transport: "stdio", ...stdioFixtureCommand() });
    const state = await mcp.t.json<McpMachineState>("GET", `/v1/mcps/${server.id}/machine-state`);
    expect(state.status).toBe(200);
    assertMatchesSchema(McpMachineState, state.body);
    expect(state.body).toMatchObject({ machineId: info.machineId, disabledHere: false, enabled: true });

    const off = await mcp.t.json<McpMachineState>("PUT", `/v1/mcps/${server.id}/machine-state`, { disabledHere: true });
    assertMatchesSchema(McpMachineState, off.body);
    expect(off.body).toMatchObject({ disabledHere: true, enabled: false });
    expect(off.body.server).toMatchObject({ enabled: true, disabledHere: true, connectionState: "disconnected", detail: "turned off on this machine" });

    const on = await mcp.t.json<McpMachineState>("PUT", `/v1/mcps/${server.id}/machine-state`, { disabledHere: false });
    expect(on.body.enabled).toBe(true);
    expect((await settled(server.id)).connectionState).toBe("connected");

    await expectError(mcp.t.json("PUT", `/v1/mcps/${server.id}/machine-state`, { disabledHere: "yes" }), 400, "disabledHere");
    await expectError(mcp.t.json("GET", "/v1/mcps/mcp_nope/machine-state"), 404, "no MCP server");
  });

  test("turned off for the account, a server is not probed", async () => {
    const server = await create({ name: "off", transport: "stdio", ...stdioFixtureCommand(), enabled: false });
    expect(await settled(server.id)).toMatchObject({ enabled: false, connectionState: "disconnected", detail: "turned off" });
  });
});

describe("OAuth", () => {
  test("401 asks for a sign-in; authorize gives the URL; the browser's return stores tokens and the server connects", async () => {
    const fixture = http({ oauth: { scope: "files:read files:write" } });
    const created = await create({ name: "oauth", transport: "http", url: fixture.url, authType: "oauth" });
    const waiting = await settled(created.id);
    expect(waiting).toMatchObject({ connectionState: "needs-authorization", oauthScope: "files:read files:write" });

    await expectError(mcp.t.json("POST", `/v1/mcps/${created.id}/authorize`, { shell: 1 }), 400, "shell");
    const started = await mcp.t.json<McpAuthorization>("POST", `/v1/mcps/${created.id}/authorize`, {});
    expect(started.status).toBe(200);
    assertMatchesSchema(McpAuthorization, started.body);
    const authorizationUrl = new URL(started.body.authorizationUrl);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("scope")).toBe("files:read files:write");
    expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(`${mcp.t.url}/v1/mcps/oauth/callback`);
    expect(fixture.oauth.registrations).toBe(1);

    // The browser: the authorization server sends it back to Atrium, which has no bearer header from it.
    const approved = await fetch(authorizationUrl, { redirect: "manual" });
    const callback = approved.headers.get("location")!;
    expect(callback).toStartWith(`${mcp.t.url}/v1/mcps/oauth/callback?`);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("oauth is signed in (connected)");

    const server = await settled(created.id);
    expect(server).toMatchObject({ connectionState: "connected", toolCount: 3 });
    const issued = fixture.oauth.tokensIssued[0]!;
    expect(fixture.requests.at(-1)?.authorization).toBe(`Bearer ${issued}`);
    expect(JSON.stringify(await list())).not.toContain(issued);

    // A state is good for one use.
    expect((await fetch(callback)).status).toBe(409);
    // A server that does not sign in with OAuth has nothing to authorize.
    const plain = await create({ name: "plain", transport: "http", url: http().url });
    await expectError(mcp.t.json("POST", `/v1/mcps/${plain.id}/authorize`, {}), 409, "does not sign in with OAuth");
  });

  test("a client that catches the code itself finishes with POST /v1/mcps/oauth/complete", async () => {
    const fixture = http({ oauth: { scope: "read" } });
    const created = await create({ name: "phone", transport: "http", url: fixture.url, authType: "oauth" });
    await settled(created.id);
    const started = await mcp.t.json<{ authorizationUrl: string; state: string }>("POST", `/v1/mcps/${created.id}/authorize`, {
      redirectUri: "atrium-app://oauth",
    });
    const back = new URL((await fetch(started.body.authorizationUrl, { redirect: "manual" })).headers.get("location")!);
    expect(back.protocol).toBe("atrium-app:");
    await expectError(mcp.t.json("POST", "/v1/mcps/oauth/complete", { state: "wrong", code: back.searchParams.get("code") }), 404, "no sign-in is waiting");
    const done = await mcp.t.json<McpServer>("POST", "/v1/mcps/oauth/complete", { state: back.searchParams.get("state"), code: back.searchParams.get("code") });
    expect(done.status).toBe(200);
    assertMatchesSchema(McpServer, done.body);
    expect(done.body.connectionState).toBe("connected");
  });
});

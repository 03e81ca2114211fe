import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { McpServer } from "../../src/schemas/mcps.ts";
import { allOnline, Fleet, pair } from "../helpers/machine-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { readServerDatabase } from "../helpers/test-store.ts";
import type { TestServer } from "../helpers/test-server.ts";

const fleet = new Fleet();
afterEach(() => fleet.stopAll());

const DOCS = { name: "docs", transport: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Api-Key": "s3cret" } };

async function serversOf(machine: TestServer): Promise<McpServer[]> {
  const listed = await machine.json<{ servers: McpServer[] }>("GET", "/v1/mcps");
  expect(listed.status).toBe(200);
  return listed.body.servers.filter((server) => server.kind === "managed");
}

/** The header values a machine keeps for a server (never served over HTTP). */
function storedHeaders(machine: TestServer, id: string): Array<[string, string]> {
  return readServerDatabase(machine.dataDir, (db) =>
    db
      .query<{ name: string; value: string }, [string]>("SELECT name, value FROM mcp_secrets WHERE server_id = ? AND kind = 'header' ORDER BY name")
      .all(id)
      .map((row): [string, string] => [row.name, row.value]),
  );
}

const untilServers = (machine: TestServer, done: (servers: McpServer[]) => boolean) => until(() => serversOf(machine), done, 15_000);

describe("the MCP registry between paired machines", () => {
  test("a server made on one machine appears on the other with its values; a change and a removal follow; the switch here stays each machine's", async () => {
    const [a, b] = await Promise.all([fleet.start("studio"), fleet.start("laptop")]);
    await pair(a, b);
    await allOnline([a, b]);
    const made = await a.json<McpServer>("POST", "/v1/mcps", DOCS);
    expect(made.status).toBe(201);

    const [copy] = await untilServers(b, (servers) => servers.length === 1);
    assertMatchesSchema(McpServer, copy);
    expect(copy).toMatchObject({
      id: made.body.id,
      name: "docs",
      transport: "http",
      url: DOCS.url,
      headerNames: ["X-Api-Key"],
      kind: "managed",
      disabledHere: false,
    });
    expect(storedHeaders(b, made.body.id)).toEqual([["X-Api-Key", "s3cret"]]);

    expect((await b.json("PUT", `/v1/mcps/${made.body.id}/machine-state`, { disabledHere: true })).status).toBe(200);
    expect((await b.json("PATCH", `/v1/mcps/${made.body.id}`, { name: "docs-search" })).status).toBe(200);
    await untilServers(a, (servers) => servers[0]?.name === "docs-search");
    expect((await serversOf(a))[0]!.disabledHere).toBe(false);
    expect((await serversOf(b))[0]!.disabledHere).toBe(true);

    expect((await a.json("DELETE", `/v1/mcps/${made.body.id}`)).status).toBe(200);
    await untilServers(b, (servers) => servers.length === 0);
    expect(storedHeaders(b, made.body.id)).toEqual([]);
  });

  test("two machines that each made a server of one name keep both, the arriving one with its id's end added", async () => {
    const [a, b] = await Promise.all([fleet.start("studio"), fleet.start("laptop")]);
    const onA = await a.json<McpServer>("POST", "/v1/mcps", DOCS);
    const onB = await b.json<McpServer>("POST", "/v1/mcps", DOCS);
    await pair(a, b);
    const servers = await untilServers(a, (listed) => listed.length === 2);
    expect(servers.find((server) => server.id === onA.body.id)!.name).toBe("docs");
    expect(servers.find((server) => server.id === onB.body.id)!.name).toBe(`docs-${onB.body.id.slice(-6)}`);
  });

  test("a server made before this build kept no replica entry: the next start gives it one, and a paired machine gets it", async () => {
    const a = await fleet.start("studio");
    const made = await a.json<McpServer>("POST", "/v1/mcps", DOCS);
    const port = a.server.port;
    await a.server.stop();
    const db = new Database(join(a.dataDir, "atrium.db"));
    db.exec("DELETE FROM sync_entries WHERE namespace = '@mcps'");
    db.close();
    const again = await fleet.start("studio", { dataDir: a.dataDir, port });
    const b = await fleet.start("laptop");
    await pair(again, b);
    const [copy] = await untilServers(b, (servers) => servers.length === 1);
    expect(copy!.id).toBe(made.body.id);
  });

  test("clients cannot read the registry's namespace through /v1/sync", async () => {
    const a = await fleet.start("studio");
    expect((await a.json("GET", "/v1/sync/@mcps")).status).toBe(400);
  });
});

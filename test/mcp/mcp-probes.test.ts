import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { McpServer } from "../../src/schemas/mcps.ts";
import { startSseMcpServer, stdioFixtureCommand, type HttpMcpOptions } from "../helpers/mcp-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { processAlive } from "../helpers/processes.ts";
import { mcpTestServer, PROBE_TIMEOUT_MS } from "./mcp-helpers.ts";

// Probes of real MCP servers: what each failure says, that no process outlives a probe (nor a stopped
// server), that a result the database cannot take is logged, and that servers outlive a restart.

const mcp = mcpTestServer();
const { create, settled, list } = mcp;
const http = (options?: HttpMcpOptions) => mcp.http(options);

describe("probes", () => {
  test("a server that crashes at start: failed, with its exit code and last stderr lines", async () => {
    const server = await settled((await create({ name: "crashes", transport: "stdio", ...stdioFixtureCommand("--crash") })).id);
    expect(server.connectionState).toBe("failed");
    expect(server.detail).toContain("exited with code 3");
    expect(server.detail).toContain("API_KEY is not set");
  });

  test("servers that hang fail at the time limit, and neither a stdio one nor what it started outlives the probe", async () => {
    const pidFile = join(mcp.scratch, "grandchild.pid");
    const limit = `no answer to initialize and tools/list within ${PROBE_TIMEOUT_MS / 1000} s`;
    const silent = http({ hang: true });
    const stdio = await create({ name: "hangs", transport: "stdio", ...stdioFixtureCommand("--hang", "--grandchild", pidFile) });
    const remote = await create({ name: "silent", transport: "http", url: silent.url });
    // Both are hanging: the stdio server has started (and said so on stderr before it wrote the pid
    // file), the HTTP one has been asked. Each probe's time limit was set before that.
    await until(
      async () => ({ started: existsSync(pidFile), asked: silent.requests.length }),
      (seen) => seen.started && seen.asked > 0,
    );
    // A request to the server takes its event loop through more than one turn: the stdio server's
    // line, written before its pid file, has been read by then.
    await list();
    await mcp.clock.advance(PROBE_TIMEOUT_MS);
    const [hung, silenced] = [await settled(stdio.id), await settled(remote.id)];
    expect(hung.connectionState).toBe("failed");
    expect(hung.detail).toContain(limit);
    expect(hung.detail).toContain("waiting forever");
    expect(silenced).toMatchObject({ connectionState: "failed", detail: limit });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await until(
      async () => !processAlive(grandchild),
      (ended) => ended,
      5000,
    );
    // No child is recorded as running any more (the record goes when the process has ended).
    await until(
      async () => readdirSync(join(mcp.t.dataDir, "children")).filter((name) => name.endsWith(".json")),
      (records) => records.length === 0,
    );
  });

  test("a command that does not exist fails with the reason", async () => {
    const server = await settled((await create({ name: "missing", transport: "stdio", command: "/nonexistent/mcp-server" })).id);
    expect(server.connectionState).toBe("failed");
    expect(server.detail).toContain("/nonexistent/mcp-server");
  });

  test("Streamable HTTP: the tools are counted, the headers sent; an error status is the detail; a re-probe on request", async () => {
    const fixture = http({ tools: 5 });
    const server = await settled((await create({ name: "remote", transport: "http", url: fixture.url, headers: { Authorization: "Bearer remote-key" } })).id);
    expect(server).toMatchObject({ connectionState: "connected", toolCount: 5 });
    expect(fixture.requests.every((request) => request.authorization === "Bearer remote-key")).toBe(true);

    const broken = await settled((await create({ name: "broken", transport: "http", url: http({ status: 500 }).url })).id);
    expect(broken).toMatchObject({ connectionState: "failed", detail: "the server answered HTTP 500 Internal Server Error" });

    const seen = fixture.requests.length;
    const probed = await mcp.t.json<McpServer>("POST", `/v1/mcps/${server.id}/probe`);
    expect(probed.status).toBe(200);
    assertMatchesSchema(McpServer, probed.body);
    expect(probed.body.connectionState).toBe("connected");
    expect(fixture.requests.length).toBeGreaterThan(seen);
  });
});

test("the older HTTP+SSE transport: connected, its tools counted", async () => {
  const old = await startSseMcpServer(4);
  try {
    const server = await settled((await create({ name: "old", transport: "sse", url: old.url })).id);
    expect(server).toMatchObject({ connectionState: "connected", toolCount: 4 });
  } finally {
    old.stop();
  }
});

describe("across a restart", () => {
  test("servers and their secrets are kept and probed again at start", async () => {
    const dir = makeTempDir("atrium-mcp-restart-");
    let first: TestServer | undefined = await startTestServer({ dataDir: dir.path, tuning: { modules: { mcps: { probeTimeoutMs: 2500 } } } });
    try {
      const fixture = http();
      const answer = await first.json<McpServer>("POST", "/v1/mcps", { name: "kept", transport: "http", url: fixture.url, headers: { "X-Key": "kept-value" } });
      const second = await first.restart();
      first = undefined;
      try {
        const server = await until(
          async () => (await second.json<McpServer>("GET", `/v1/mcps/${answer.body.id}`)).body,
          (server) => server.connectionState === "connected" && server.probedAt !== answer.body.probedAt,
        );
        expect(server.headerNames).toEqual(["X-Key"]);
      } finally {
        await second.stop();
      }
    } finally {
      await first?.stop();
      dir.remove();
    }
  });
});

describe("when the database cannot be written", () => {
  test("a probe's outcome that cannot be recorded is logged; the list still answers; a later probe records", async () => {
    // The server answers once the test holds the database's write lock.
    const hold = join(mcp.scratch, "answer-now");
    const server = await create({ name: "slow", transport: "stdio", ...stdioFixtureCommand("--hold", hold) });
    const other = new Database(join(mcp.t.dataDir, "atrium.db"));
    other.exec("BEGIN IMMEDIATE");
    try {
      writeFileSync(hold, "");
      await until(
        async () => readFileSync(join(mcp.t.dataDir, "logs", "atrium.log"), "utf8"),
        (log) => log.includes("could not record an MCP server's state"),
        15_000,
      );
      const started = performance.now();
      const listed = (await list()).find((each) => each.id === server.id);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(listed?.connectionState).toBe("connecting");
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    const probed = await mcp.t.json<McpServer>("POST", `/v1/mcps/${server.id}/probe`);
    expect(probed.body.connectionState).toBe("connected");
  }, 30_000);
});

describe("stopping the server", () => {
  test("a probe that runs is ended with its process and whatever that started", async () => {
    const own = await startTestServer({ tuning: { modules: { mcps: { probeTimeoutMs: 60_000 } } } });
    const pidFile = join(mcp.scratch, "stop-grandchild.pid");
    try {
      const answer = await own.json<McpServer>("POST", "/v1/mcps", {
        name: "hangs",
        transport: "stdio",
        ...stdioFixtureCommand("--hang", "--grandchild", pidFile),
      });
      expect(answer.body.connectionState).toBe("connecting");
      await until(
        async () => {
          try {
            return Number(readFileSync(pidFile, "utf8"));
          } catch {
            return 0;
          }
        },
        (pid) => pid > 0,
      );
    } finally {
      await own.stop();
    }
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await until(
      async () => !processAlive(grandchild),
      (ended) => ended,
      5000,
    );
  });
});

import { afterAll, afterEach, beforeAll, expect } from "bun:test";
import { ErrorBody } from "../../src/schemas/common.ts";
import { McpServer, McpServerList } from "../../src/schemas/mcps.ts";
import { startHttpMcpServer, type HttpMcpFixture, type HttpMcpOptions } from "../helpers/mcp-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { MovableClock } from "../helpers/movable-clock.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

/**
 * A probe that has not answered by then has failed. No server a test starts takes that long on the
 * busiest machine: a test that means a probe to fail there moves the server's clock on instead.
 */
export const PROBE_TIMEOUT_MS = 60_000;

/**
 * One server for a test file, the HTTP fixtures it starts and a scratch folder, all stopped and removed
 * after the file; every managed server is removed after each test. Its clock is the real one, which a
 * test moves on to pass the probes' time limit.
 */
export function mcpTestServer() {
  const state = { t: undefined as unknown as TestServer };
  const fixtures: HttpMcpFixture[] = [];
  const scratch = makeTempDir("atrium-mcp-");
  const clock = new MovableClock();
  beforeAll(async () => {
    state.t = await startTestServer({ tuning: { clock, modules: { mcps: { probeTimeoutMs: PROBE_TIMEOUT_MS } } } });
  });
  afterAll(async () => {
    await state.t.stop();
    for (const fixture of fixtures) fixture.stop();
    scratch.remove();
  });

  const list = async (server: Pick<TestServer, "json"> = state.t): Promise<McpServer[]> => {
    const answer = await server.json<McpServerList>("GET", "/v1/mcps");
    expect(answer.status).toBe(200);
    assertMatchesSchema(McpServerList, answer.body);
    return answer.body.servers;
  };
  afterEach(async () => {
    for (const server of await list()) if (server.kind === "managed") await state.t.json("DELETE", `/v1/mcps/${server.id}`);
  });

  return {
    get t() {
      return state.t;
    },
    scratch: scratch.path,
    clock,
    list,
    http(options: HttpMcpOptions = {}): HttpMcpFixture {
      const fixture = startHttpMcpServer(options);
      fixtures.push(fixture);
      return fixture;
    },
    async create(body: Record<string, unknown>): Promise<McpServer> {
      const answer = await state.t.json<McpServer>("POST", "/v1/mcps", body);
      expect(answer.status).toBe(201);
      assertMatchesSchema(McpServer, answer.body);
      return answer.body;
    },
    /** The server once its probe has ended. */
    async settled(id: string): Promise<McpServer> {
      const server = await until(
        async () => (await state.t.json<McpServer>("GET", `/v1/mcps/${id}`)).body,
        (server) => server.connectionState !== "connecting",
      );
      assertMatchesSchema(McpServer, server);
      return server;
    },
  };
}

export async function expectError(answer: Promise<{ status: number; body: unknown }>, status: number, words: string): Promise<void> {
  const { status: got, body } = await answer;
  expect(got).toBe(status);
  assertMatchesSchema(ErrorBody, body);
  expect((body as { error: string }).error).toContain(words);
}

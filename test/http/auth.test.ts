import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Health } from "../../src/schemas/system.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { bearerToken } from "../../src/http/auth-guard.ts";

let t: TestServer;
let operations: Array<{ method: string; path: string; ticketed: boolean }>;

beforeAll(async () => {
  t = await startTestServer();
  const document = (await (await t.api("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, "x"),
      // A browser's return from a sign-in: no bearer, its one-time ticket checked instead.
      ticketed: ((operation as { security?: unknown[] }).security ?? [{}]).length === 0,
    })),
  );
});
afterAll(() => t.stop());

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
  const body = await response.json();
  assertMatchesSchema(ErrorBody, body);
}

describe("bearer guard", () => {
  test("the OpenAPI document lists the foundation routes", () => {
    const listed = operations.map((op) => `${op.method} ${op.path}`);
    for (const expected of ["GET /v1/health", "GET /v1/info", "GET /v1/events/cursor", "GET /v1/events/stream", "GET /v1/openapi.json", "PUT /v1/sync/x"]) {
      expect(listed).toContain(expected);
    }
  });

  test("every route refuses a request without a token (health: when not local)", async () => {
    for (const op of operations.filter((candidate) => !candidate.ticketed)) {
      const headers: Record<string, string> = op.path === "/v1/health" ? { "x-forwarded-for": "203.0.113.9" } : {};
      await expectUnauthorized(await fetch(t.url + op.path, { method: op.method, headers }));
    }
  });

  test("ticketed routes answer nothing without their own ticket; a route needing the token that looks alike still needs it", async () => {
    expect(operations.filter((op) => op.ticketed).map((op) => `${op.method} ${op.path}`)).toEqual([
      "GET /v1/mcps/oauth/callback",
      "POST /v1/plugins/mcp",
      "GET /v1/plugins/mcp",
      "DELETE /v1/plugins/mcp",
      "GET /v1/plugins/x/panes/x/x",
      "POST /v1/plugins/x/panes/x/x",
      "OPTIONS /v1/plugins/x/panes/x/x",
      "POST /v1/machines/pair/accept",
      "GET /v1/terminals/x/socket",
      "POST /v1/console/sign-in",
    ]);
    expect((await fetch(`${t.url}/v1/mcps/oauth/callback`)).status).toBe(400);
    const forged = await fetch(`${t.url}/v1/mcps/oauth/callback?state=forged&code=abc`);
    expect(forged.status).toBe(409);
    expect(forged.headers.get("content-security-policy")).toBe("default-src 'none'");
    expect(await forged.text()).toContain("no sign-in is waiting with this state");
    for (const headers of [{}, { authorization: "Bearer atr_wrongwrongwrongwrongwrong" }] as Array<Record<string, string>>) {
      const tools = await fetch(`${t.url}/v1/plugins/mcp`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" });
      expect(tools.status).toBe(401);
      expect(((await tools.json()) as { error: string }).error).toContain("session's plugin-tools token");
    }
    for (const method of ["GET", "OPTIONS"]) {
      const pane = await fetch(`${t.url}/v1/plugins/demo/panes/pt_forged/index.html`, { method });
      expect(pane.status).toBe(404);
      assertMatchesSchema(ErrorBody, await pane.json());
    }
    const accept = await fetch(`${t.url}/v1/machines/pair/accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        code: "AAAAA-BBBBB",
        machine: { id: "mch-x", name: "x", os: "linux", url: "http://127.0.0.1:9" },
        token: "atr_0123456789abcdef0123",
      }),
    });
    expect(accept.status).toBe(401);
    expect(((await accept.json()) as { error: string }).error).toContain("the pairing code is wrong");
    // `open` is a route of its own that needs the token, whatever a pane's content is called.
    await expectUnauthorized(await fetch(`${t.url}/v1/plugins/demo/panes/board/open`, { method: "POST" }));
  });

  test("every route refuses a wrong token", async () => {
    for (const op of operations.filter((candidate) => !candidate.ticketed)) {
      const response = await fetch(t.url + op.path, { method: op.method, headers: { authorization: "Bearer atr_wrongwrongwrongwrongwrong" } });
      await expectUnauthorized(response);
    }
  });

  test("a malformed Authorization header is refused", async () => {
    for (const header of ["Basic abc", "Bearer", "Bearer ", t.token]) {
      await expectUnauthorized(await fetch(`${t.url}/v1/info`, { headers: { authorization: header } }));
    }
  });

  test("a token in the query string is not accepted", async () => {
    await expectUnauthorized(await fetch(`${t.url}/v1/info?access_token=${t.token}`));
  });

  test("loopback health without an Authorization header answers 200", async () => {
    const response = await fetch(`${t.url}/v1/health`);
    expect(response.status).toBe(200);
    assertMatchesSchema(Health, await response.json());
  });

  test("health through a proxy (remote-style) without a token is 401", async () => {
    for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      await expectUnauthorized(await fetch(`${t.url}/v1/health`, { headers: { [header]: "203.0.113.9" } }));
    }
  });

  test("health with a wrong token is 401 even from loopback", async () => {
    await expectUnauthorized(await fetch(`${t.url}/v1/health`, { headers: { authorization: "Bearer nope" } }));
  });

  test("unknown routes need a token too, then answer 404", async () => {
    await expectUnauthorized(await fetch(`${t.url}/v1/no-such-route`));
    const response = await t.api("/v1/no-such-route");
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toContain("/v1/no-such-route");
  });

  test("a named token works until it is revoked", async () => {
    const paths = dataPaths(t.dataDir);
    const created = withStore(paths, (store) => new AccessTokens("unused", new TokenRepository(store)).create("phone"));
    const withNamed = () => fetch(`${t.url}/v1/info`, { headers: { authorization: `Bearer ${created.token}` } });
    expect((await withNamed()).status).toBe(200);
    withStore(paths, (store) => new AccessTokens("unused", new TokenRepository(store)).revoke("phone"));
    await expectUnauthorized(await withNamed());
  });
});

test("bearerToken reads the scheme case-insensitively and refuses anything else", () => {
  expect(bearerToken("Bearer abc")).toBe("abc");
  expect(bearerToken("bearer abc ")).toBe("abc");
  expect(bearerToken("BEARER   abc")).toBe("abc");
  for (const header of [null, "", "Bearer", "Bearer ", "Basic abc", "Bearerabc"]) expect(bearerToken(header)).toBeUndefined();
});

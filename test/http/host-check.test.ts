import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { openTestStore } from "../helpers/test-store.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { startEarlyListener } from "../../src/http/early-listener.ts";
import { RefusalLog } from "../../src/http/refusal-log.ts";
import { hostCheck } from "../../src/http/host-check.ts";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { FileLogger } from "../../src/logging/logger.ts";
import { join } from "node:path";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

/** GET `path` on `url` with the given Host header, with the admin token unless `token` is false. */
async function getWithHost(url: string, path: string, host: string, token: string | false): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { host };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url + path, { headers });
  return { status: response.status, body: await response.json() };
}

describe("the Host header of a server on loopback", () => {
  test("another site's name is refused 403 before the token is looked at; loopback names pass, with or without a port", async () => {
    for (const [path, token] of [
      ["/v1/health", false],
      ["/v1/info", t.token],
      ["/v1/sync/x", "wrong"],
    ] as const) {
      for (const host of ["evil.example", `evil.example:${t.server.port}`, "127.0.0.1.evil.example", "localhost.evil.example"]) {
        const { status, body } = await getWithHost(t.url, path, host, token);
        expect(status).toBe(403);
        assertMatchesSchema(ErrorBody, body);
        expect((body as { error: string }).error).toStartWith(`the Host header names ${JSON.stringify(host)}, which is not this server's address`);
      }
    }
    const port = t.server.port;
    for (const host of [`127.0.0.1:${port}`, "127.0.0.1", `localhost:${port}`, "localhost", "LOCALHOST.", `[::1]:${port}`, "[::1]", "127.0.0.2"]) {
      expect((await getWithHost(t.url, "/v1/health", host, false)).status).toBe(200);
      expect((await getWithHost(t.url, "/v1/info", host, t.token)).status).toBe(200);
    }
  });

  test("allowedHosts admits names of the user's choosing; a server bound beyond loopback checks none", async () => {
    const allowing = await startTestServer({ config: { allowedHosts: ["atrium.internal", "Proxy.Example:8443"] } });
    try {
      for (const host of ["atrium.internal", `atrium.internal:${allowing.server.port}`, "proxy.example"]) {
        expect((await getWithHost(allowing.url, "/v1/info", host, allowing.token)).status).toBe(200);
      }
      expect((await getWithHost(allowing.url, "/v1/info", "evil.example", allowing.token)).status).toBe(403);
    } finally {
      await allowing.stop();
    }
    const open = await startTestServer({ host: "0.0.0.0" });
    try {
      const url = `http://127.0.0.1:${open.server.port}`;
      expect((await getWithHost(url, "/v1/info", "evil.example", open.token)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  test("the early listener (serving while the database migrates) applies the same rule", async () => {
    const db = openTestStore();
    const logger = new FileLogger({ file: join(db.dir, "atrium.log"), level: "info", echoToStderr: false, maxBytes: 1 << 20 });
    const { server: listener } = startEarlyListener({
      host: "127.0.0.1",
      port: 0,
      routes: [],
      tokens: new AccessTokens("atr_admin", new TokenRepository(db.store)),
      refusals: new RefusalLog(logger),
      checkHost: hostCheck("127.0.0.1"),
      logger,
      unavailableReason: () => "the database is being migrated",
    });
    try {
      const url = `http://127.0.0.1:${listener.port}`;
      expect((await getWithHost(url, "/v1/anything", "evil.example", "atr_admin")).status).toBe(403);
      expect((await getWithHost(url, "/v1/anything", `localhost:${listener.port}`, "atr_admin")).status).toBe(503);
    } finally {
      void listener.stop(true);
      db.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";

let t: TestServer;
let base = 0;
/** How often the server looks at the tokens of open streams (a second by default). */
const CHECK_MS = 100;
beforeAll(async () => {
  t = await startTestServer({ tuning: { streamLimits: { authorizationCheckMs: CHECK_MS } } });
  base = await t.ready();
});
afterAll(() => t.stop());

let wallMs = 1;
async function write(): Promise<void> {
  const put = await t.json("PUT", "/v1/sync/revocation", {
    entries: [{ key: "k", value: wallMs, timestamp: { wallMs: wallMs++, counter: 0, deviceId: "d" } }],
  });
  expect(put.status).toBe(200);
}

describe("revoking a named token", () => {
  test("ends that token's open event streams at the next look at the tokens; the admin token's stream goes on", async () => {
    const phoneToken = withStore(dataPaths(t.dataDir), (store) => new AccessTokens("unused", new TokenRepository(store)).create("phone").token);
    const phone = new SseClient(`${t.url}/v1/events/stream?after=${base}`, { authorization: `Bearer ${phoneToken}` });
    const admin = new SseClient(`${t.url}/v1/events/stream?after=${base}`, { authorization: `Bearer ${t.token}` });
    await Promise.all([phone.ready, admin.ready]);
    expect([phone.status, admin.status]).toEqual([200, 200]);
    await write();
    await Promise.all([phone.waitForFrames(1), admin.waitForFrames(1)]);

    // The real CLI, in another process: it deletes the row; the server hears of it only from the database.
    const revoked = await runAtrium(builtCommand, ["token", "revoke", "phone"], t.dataDir);
    expect(revoked.code).toBe(0);
    const revokedAt = Date.now();
    await until(
      async () => phone.closed,
      (closed) => closed,
      3_000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(10 * CHECK_MS);

    await write();
    await admin.waitForFrames(2);
    expect(admin.closed).toBe(false);
    expect(phone.frames).toHaveLength(1);
    const again = await fetch(`${t.url}/v1/events/stream`, { headers: { authorization: `Bearer ${phoneToken}` } });
    expect(again.status).toBe(401);
    expect(readFileSync(t.server.paths.logFile, "utf8")).toContain('closed an event stream: the token \\"phone\\" is no longer valid');
    admin.close();
  });
});

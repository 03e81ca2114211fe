import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { runAtrium, sourceCommand } from "../helpers/cli-process.ts";
import { until } from "../helpers/poll.ts";

let t: TestServer;
let base = 0;
beforeAll(async () => {
  t = await startTestServer();
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
  test("ends that token's open event streams within about a second; the admin token's stream goes on", async () => {
    const created = await runAtrium(sourceCommand, ["token", "create", "--name", "phone"], t.dataDir);
    expect(created.code).toBe(0);
    const phoneToken = created.stdout.trim();
    const phone = new SseClient(`${t.url}/v1/events/stream?after=${base}`, { authorization: `Bearer ${phoneToken}` });
    const admin = new SseClient(`${t.url}/v1/events/stream?after=${base}`, { authorization: `Bearer ${t.token}` });
    await Promise.all([phone.ready, admin.ready]);
    expect([phone.status, admin.status]).toEqual([200, 200]);
    await write();
    await Promise.all([phone.waitForFrames(1), admin.waitForFrames(1)]);

    // The real CLI, in another process: it deletes the row; the server hears of it only from the database.
    const revoked = await runAtrium(sourceCommand, ["token", "revoke", "phone"], t.dataDir);
    expect(revoked.code).toBe(0);
    const revokedAt = Date.now();
    await until(
      async () => phone.closed,
      (closed) => closed,
      3_000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(2_000);

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

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Health, ServerInfo } from "../../src/schemas/system.ts";
import { CursorResponse } from "../../src/schemas/events.ts";
import { latestSchemaVersion } from "../../src/store/migrations.ts";
import { FEATURES } from "../../src/server/atrium-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { coreModule } from "../../src/modules/core-module.ts";
import { MODULES } from "../../src/modules/modules.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("system routes", () => {
  test("health reports release, database, process and migrations", async () => {
    const { status, body } = await t.json<Health>("GET", "/v1/health");
    expect(status).toBe(200);
    assertMatchesSchema(Health, body);
    expect(body.status).toBe("ok");
    expect(body.database).toMatchObject({ state: "ok", schemaVersion: latestSchemaVersion, journalMode: "wal" });
    expect(body.process.pid).toBe(process.pid);
    expect(body.migration).toMatchObject({ state: "idle", targetVersion: latestSchemaVersion });
  });

  test("info reports identity, platform, bind address and features", async () => {
    const { status, body } = await t.json<ServerInfo>("GET", "/v1/info");
    expect(status).toBe(200);
    assertMatchesSchema(ServerInfo, body);
    expect(body.serverId).toBe(t.server.identity.serverId);
    expect(body.bindAddress).toEqual({ host: "127.0.0.1", port: t.server.port });
    expect(body.platform).toBe(process.platform);
    expect(body.features).toEqual(FEATURES);
  });

  test("the feature list info answers from its first moment is the modules' own, in their order", () => {
    expect(FEATURES).toEqual([coreModule, ...MODULES].flatMap((module) => module.features));
  });

  test("the event cursor follows writes", async () => {
    const start = await t.ready();
    const before = await t.json<{ cursor: number }>("GET", "/v1/events/cursor");
    assertMatchesSchema(CursorResponse, before.body);
    expect(before.body.cursor).toBe(start);
    await t.json("PUT", "/v1/sync/x", { entries: [{ key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }] });
    expect((await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor).toBe(start + 1);
  });

  test("the server identity survives a restart on the same data dir", async () => {
    const dir = makeTempDir();
    const first = await startTestServer({ dataDir: dir.path });
    const identity = first.server.identity;
    await first.stop();
    const second = await startTestServer({ dataDir: dir.path });
    expect(second.server.identity).toEqual(identity);
    await second.stop();
    dir.remove();
  });
});

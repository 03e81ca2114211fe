import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Static } from "@sinclair/typebox";
import { existsSync, readdirSync } from "node:fs";
import { Database } from "bun:sqlite";
import { dataPaths } from "../../src/config/paths.ts";
import { Health, ServerInfo } from "../../src/schemas/system.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Store } from "../../src/store/database.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { currentSchemaVersion, latestSchemaVersion, migrations, type Migration } from "../../src/store/migrations.ts";
import { readRuntimeFile } from "../../src/config/runtime-file.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { until } from "../helpers/poll.ts";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// A server started on the data of the previous release: the new release's migration runs in a worker
// while health answers with its progress, and nothing else is served until it is done.

const NEXT = latestSchemaVersion + 1;
/** Fills a table of three million rows: a second or two, long enough to watch. */
const slowMigration: Migration = {
  version: NEXT,
  name: "fill numbers",
  sql: "CREATE TABLE numbers AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000000) SELECT x FROM n",
};
const failingMigration: Migration = { version: NEXT, name: "broken", sql: "CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1)" };

let dir: ReturnType<typeof makeTempDir>;
let paths: ReturnType<typeof dataPaths>;
let serverId = "";
let phoneToken = "";

/** The previous release's data: a synced entry, and a named token for a phone. */
beforeEach(async () => {
  dir = makeTempDir("atrium-migration-phase-");
  paths = dataPaths(dir.path);
  const previous = await startTestServer({ dataDir: dir.path });
  serverId = previous.server.identity.serverId;
  const put = await previous.json("PUT", "/v1/sync/notes", { entries: [{ key: "k", value: "kept", timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }] });
  expect(put.status).toBe(200);
  await previous.stop();
  const store = Store.open(paths.database);
  phoneToken = new AccessTokens("unused", new TokenRepository(store)).create("phone").token;
  store.close();
});
afterEach(() => dir.remove());

const readdirBackups = () => (existsSync(paths.backups) ? readdirSync(paths.backups) : []);

/** The listener's address, from the runtime file it writes as soon as it listens. */
async function listenerUrl(): Promise<string> {
  const runtime = await until(
    async () => readRuntimeFile(paths.runtime),
    (info) => info?.pid === process.pid,
  );
  return runtime!.url;
}

async function health(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${url}/v1/health`, { headers });
  return { status: response.status, body: (await response.json()) as Health };
}

function phoneTokenLastUsed(): string | null {
  const db = new Database(paths.database, { readonly: true });
  try {
    return db.query<{ last_used_at: string | null }, []>("SELECT last_used_at FROM access_tokens WHERE name = 'phone'").get()!.last_used_at;
  } finally {
    db.close();
  }
}

describe("starting on a database that needs migrating", () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  test("health shows the migration running with its progress; other requests get 503; then everything is served, data intact", async () => {
    const starting = startTestServer({ dataDir: dir.path, tuning: { migrations: [...migrations, slowMigration] } });
    const url = await listenerUrl();
    // A client polling health from now on, through the migration and the hand-over to the full
    // server: the same socket serves throughout, so no attempt is ever refused.
    let polling = true;
    const answers = { ok: 0, failed: [] as string[] };
    const poller = (async () => {
      while (polling) {
        try {
          const response = await fetch(`${url}/v1/health`);
          await response.arrayBuffer();
          if (response.status === 200) answers.ok++;
          else answers.failed.push(`status ${response.status}`);
        } catch (error) {
          answers.failed.push((error as Error).message);
        }
        // As a client polls: back to back, the loop took a core from the migration it watches.
        await Bun.sleep(5);
      }
    })();

    const running = await health(url);
    expect(running.status).toBe(200);
    assertMatchesSchema(Health, running.body);
    expect(running.body.status).toBe("degraded");
    expect(running.body.migration).toMatchObject({ state: "running", schemaVersion: latestSchemaVersion, targetVersion: NEXT });
    expect(running.body.migration.progress).toBeGreaterThanOrEqual(0);
    expect(running.body.migration.progress).toBeLessThan(1);
    expect(running.body.database).toMatchObject({ state: "ok", schemaVersion: latestSchemaVersion });
    // The migration itself is under way: its step is named.
    const migrating = await until(
      () => health(url),
      (answer) => answer.body.migration.detail?.includes(`migration ${NEXT}`) === true,
    );
    expect(migrating.body.migration).toMatchObject({ state: "running", progress: 0.5 });
    expect(migrating.body.migration.detail).toBe(`migration ${NEXT} (fill numbers): step 2 of 2, to schema ${NEXT}`);

    const refused = await fetch(`${url}/v1/sync/notes`, { headers: { authorization: `Bearer ${phoneToken}` } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    const refusal = (await refused.json()) as Static<typeof ErrorBody>;
    assertMatchesSchema(ErrorBody, refusal);
    expect(refusal.error).toContain(`the database is being migrated to schema ${NEXT}`);
    // Tokens are checked as always, and a named token's use is not written while the database migrates.
    expect((await fetch(`${url}/v1/sync/notes`)).status).toBe(401);
    expect((await fetch(`${url}/v1/info`, { headers: { authorization: "Bearer atr_wrong" } })).status).toBe(401);
    const info = await fetch(`${url}/v1/info`, { headers: { authorization: `Bearer ${phoneToken}` } });
    expect(info.status).toBe(200);
    const infoBody = (await info.json()) as ServerInfo;
    assertMatchesSchema(ServerInfo, infoBody);
    expect(infoBody.serverId).toBe(serverId);
    expect((await health(url, { authorization: `Bearer ${phoneToken}` })).status).toBe(200);
    expect(phoneTokenLastUsed()).toBeNull();

    t = await starting;
    expect(t.url).toBe(url);
    polling = false;
    await poller;
    expect(answers.failed).toEqual([]);
    expect(answers.ok).toBeGreaterThan(10);
    const done = await health(url);
    assertMatchesSchema(Health, done.body);
    expect(done.body.status).toBe("ok");
    expect(done.body.database.schemaVersion).toBe(NEXT);
    expect(done.body.migration).toMatchObject({ state: "idle", schemaVersion: NEXT, targetVersion: NEXT });
    const backup = /the database before it is in (\S+)$/.exec(done.body.migration.detail ?? "")?.[1];
    expect(backup).toStartWith(paths.backups);
    expect(existsSync(backup!)).toBe(true);
    const copy = Store.open(backup!);
    expect(currentSchemaVersion(copy)).toBe(latestSchemaVersion);
    copy.close();

    const notes = await fetch(`${url}/v1/sync/notes`, { headers: { authorization: `Bearer ${phoneToken}` } });
    expect(notes.status).toBe(200);
    expect(JSON.stringify(await notes.json())).toContain("kept");
    expect(t.server.identity.serverId).toBe(serverId);
  }, 30_000);

  test("a failing migration leaves the database as it was; the server stays up, saying why, and serves nothing else", async () => {
    t = await startTestServer({ dataDir: dir.path, tuning: { migrations: [...migrations, failingMigration] } });
    const failed = await health(t.url);
    expect(failed.status).toBe(200);
    assertMatchesSchema(Health, failed.body);
    expect(failed.body.status).toBe("degraded");
    expect(failed.body.migration).toMatchObject({ state: "failed", schemaVersion: latestSchemaVersion, targetVersion: NEXT });
    expect(failed.body.migration.detail).toContain(`the migration to schema ${NEXT} failed, so the database is still at schema ${latestSchemaVersion}`);
    expect(failed.body.migration.detail).toContain("no such table: nowhere");
    const refused = await t.api("/v1/sync/notes");
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as Static<typeof ErrorBody>).error).toContain("no such table: nowhere");
    // `atrium status` finds it running and says why it is degraded.
    const status = await runAtrium(builtCommand, ["status"], dir.path);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("is degraded");
    expect(status.stdout).toContain(`  migration  failed: the migration to schema ${NEXT} failed`);
    await t.stop();
    t = undefined;

    const store = Store.open(paths.database);
    expect(currentSchemaVersion(store)).toBe(latestSchemaVersion);
    expect(store.db.query("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeNull();
    store.close();
    // The release that knows this database starts on it as before.
    t = await startTestServer({ dataDir: dir.path });
    expect((await t.api("/v1/sync/notes")).status).toBe(200);
  }, 30_000);

  test("a database from a newer Atrium is reported, not touched", async () => {
    const store = Store.open(paths.database);
    store.db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00Z')");
    store.close();
    t = await startTestServer({ dataDir: dir.path });
    const answer = await health(t.url);
    assertMatchesSchema(Health, answer.body);
    expect(answer.body.migration.state).toBe("failed");
    expect(answer.body.migration.detail).toContain("newer than this Atrium knows");
    expect(readdirBackups()).toEqual([]);
  }, 30_000);
});

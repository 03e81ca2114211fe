import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtCommand, runAtrium, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { DEV_BUILD } from "../helpers/compiled-build.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Health, ServerInfo } from "../../src/schemas/system.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { schemaOf } from "../helpers/test-store.ts";
import { createDatabaseIfMissing } from "../../src/store/new-database.ts";
import { dataPaths } from "../../src/config/paths.ts";
import type { PtyTerminal } from "../../src/schemas/terminals.ts";
import { until } from "../helpers/poll.ts";

// The compiled executable is what users run; Elysia behaves differently when its source is
// transformed, so it is tested itself rather than only the source. The developer's build is compiled
// as a release is (the same splitting, workers and embedded files), only its identity differs: the
// release suite (npm run test:release) runs a release's own build through install.sh and self-update.
const home = makeTempDir("atrium-home-");
const [binary] = builtCommand as [string];
let serve: ServeProcess;

/** When the first start began: its migrations are dated then, not when the build was made. */
let firstStartAt: string;

beforeAll(async () => {
  firstStartAt = new Date().toISOString();
  serve = await startServe([binary], home.path);
}, 120_000);

afterAll(async () => {
  serve?.child.kill("SIGTERM");
  await serve?.child.exited;
  home.remove();
});

/** A request with the admin token (read through the CLI, as a user would). */
async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const token = (await runAtrium([binary], ["token"], home.path)).stdout.trim();
  return fetch(serve.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("compiled binary", () => {
  test("prints its embedded version, and no source map is left beside it", async () => {
    const result = await runAtrium([binary], ["--version"], home.path);
    expect(result.stdout.trim()).toBe(DEV_BUILD.version);
    expect(readdirSync(dirname(binary))).toEqual(["atrium"]);
  });

  test("its first start wrote the migrated database it carries: the schema the migrations make, none of them run, dated at that start", () => {
    const paths = dataPaths(home.path);
    const fromSource = makeTempDir("atrium-schema-");
    try {
      createDatabaseIfMissing(join(fromSource.path, "atrium.db"));
      expect(schemaOf(paths.database)).toEqual(schemaOf(join(fromSource.path, "atrium.db")));
    } finally {
      fromSource.remove();
    }
    const lines = readFileSync(paths.logFile, "utf8").trim().split("\n");
    const migrated = lines
      .map((line) => JSON.parse(line) as { msg: string; applied?: Array<{ durationMs: number }> })
      .find((entry) => entry.msg === "database migrated");
    expect(migrated?.applied?.length).toBeGreaterThan(0);
    expect(migrated?.applied?.every((migration) => migration.durationMs === 0)).toBe(true);
    const database = new Database(paths.database, { readonly: true });
    try {
      const dates = database.query<{ applied_at: string }, []>("SELECT applied_at FROM schema_migrations").all();
      expect(dates.length).toBe(migrated?.applied?.length ?? -1);
      expect(dates.filter((row) => row.applied_at < firstStartAt)).toEqual([]);
    } finally {
      database.close();
    }
  });

  test("answers loopback health with the embedded release", async () => {
    const response = await fetch(`${serve.url}/v1/health`);
    expect(response.status).toBe(200);
    const health = (await response.json()) as { release: unknown };
    assertMatchesSchema(Health, health);
    expect(health.release).toEqual(DEV_BUILD);
  });

  test("refuses requests without a token with 401 and an {error} body", async () => {
    for (const path of ["/v1/info", "/v1/events/cursor", "/v1/openapi.json"]) {
      const response = await fetch(serve.url + path);
      expect(response.status).toBe(401);
      assertMatchesSchema(ErrorBody, await response.json());
    }
    const remote = await fetch(`${serve.url}/v1/health`, { headers: { "x-forwarded-for": "203.0.113.1" } });
    expect(remote.status).toBe(401);
  });

  test("validates and rejects bad input like the source does", async () => {
    const token = (await runAtrium([binary], ["token"], home.path)).stdout.trim();
    const response = await fetch(`${serve.url}/v1/sync/x`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ entries: [{ key: "k", value: 1, timestamp: { wallMs: "x", counter: 0, deviceId: "d" } }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("entries[0].timestamp.wallMs");
  });

  test("errors from asynchronous handlers get their mapped status, not a bare 500", async () => {
    const missing = await call("DELETE", "/v1/projects/prj_nope");
    expect(missing.status).toBe(404);
    assertMatchesSchema(ErrorBody, await missing.json());
    const invalid = await call("POST", "/v1/projects", {});
    expect(invalid.status).toBe(400);
    assertMatchesSchema(ErrorBody, await invalid.json());
  });

  test("its worker threads load from inside the executable: a terminal's PTY reader, the checkpointer's scrub", async () => {
    const folder = makeTempDir("atrium-worker-project-");
    try {
      const project = (await (await call("POST", "/v1/projects", { folderPath: folder.path })).json()) as { id: string };
      // The PTY worker reports the process started (else no 201) and how it exited.
      const started = await call("POST", "/v1/terminals", { projectId: project.id, cols: 80, rows: 24, command: "exit 7" });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as PtyTerminal;
      const read = async () => (await (await call("GET", `/v1/terminals/${id}`)).json()) as PtyTerminal;
      expect((await until(read, (terminal) => terminal.state === "exited")).exitCode).toBe(7);
      // A session's deletion asks the checkpoint worker to scrub, which empties the WAL; without the worker nothing does.
      const session = (await (await call("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo" })).json()) as { id: string };
      expect((await call("DELETE", `/v1/sessions/${session.id}`)).status).toBe(200);
      const walBytes = async () => statSync(`${dataPaths(home.path).database}-wal`).size;
      await until(walBytes, (bytes) => bytes === 0);
    } finally {
      folder.remove();
    }
  });

  test("serves the console and its installable files from inside the executable", async () => {
    const page = await fetch(`${serve.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(0);
    const fixed = [
      "/sw.js",
      "/manifest.webmanifest",
      "/icon-192.png",
      "/icon-512.png",
      "/icon-maskable-512.png",
      "/highlighter.js",
      "/terminal-emulator.js",
      "/code-editor.js",
    ];
    // And what each script imports (chunks the lazily loaded pages share), as a browser would ask for it.
    const asked = new Set<string>();
    const fetchAll = async (paths: string[]): Promise<void> => {
      for (const path of paths.filter((candidate) => !asked.has(candidate))) {
        asked.add(path);
        const response = await fetch(serve.url + path);
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        const body = await response.text();
        expect(body.length).toBeGreaterThan(0);
        if (path.endsWith(".js")) await fetchAll([...body.matchAll(/(?:from|import\()\s*"(\/[^"]+\.js)"/g)].map((match) => match[1]!));
      }
    };
    await fetchAll([...assets, ...fixed]);
    expect([...asked].filter((path) => !fixed.includes(path) && !assets.includes(path)).length).toBeGreaterThan(0);
  });

  test("status --json reports the running server", async () => {
    const result = await runAtrium([binary], ["status", "--json"], home.path);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.running).toBe(true);
    assertMatchesSchema(Health, report.health);
    assertMatchesSchema(ServerInfo, report.info);
    expect(report.info.version).toBe(DEV_BUILD.version);
  });
});

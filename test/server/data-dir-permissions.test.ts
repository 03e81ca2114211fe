import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { runAtrium, builtCommand, startServe } from "../helpers/cli-process.ts";
import { startTestServer } from "../helpers/test-server.ts";
import { latestSchemaVersion, migrations } from "../../src/store/migrations.ts";

/** Every file and folder under `root` whose mode lets group or others in, with its mode. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if ((stat.mode & 0o077) !== 0) found.push(`${path.slice(root.length) || "/"} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

describe("the data dir is private", () => {
  test("everything a running server writes is 0600 or 0700, the database's -wal and -shm too", async () => {
    const home = makeTempDir();
    // As an earlier install.sh left it: made with the caller's umask.
    chmodSync(home.path, 0o755);
    mkdirSync(join(home.path, "logs"), { mode: 0o755 });
    const serve = await startServe(builtCommand, home.path);
    try {
      const token = (await runAtrium(builtCommand, ["token"], home.path)).stdout.trim();
      expect((await runAtrium(builtCommand, ["token", "create", "--name", "phone"], home.path)).code).toBe(0);
      const call = (method: string, path: string, body: unknown) =>
        fetch(serve.url + path, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await call("PUT", "/v1/sync/ui", { entries: [{ key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }] })).status).toBe(200);
      expect((await call("POST", "/v1/projects", { isScratch: true })).status).toBe(201);
      expect((await call("POST", "/v1/files", { name: "a.txt", mimeType: "text/plain", contentBase64: btoa("hello") })).status).toBe(201);

      expect(existsSync(join(home.path, "atrium.db-wal"))).toBe(true);
      expect(existsSync(join(home.path, "atrium.db-shm"))).toBe(true);
      expect(openToOthers(home.path)).toEqual([]);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.exited;
    }
    expect(openToOthers(home.path)).toEqual([]);
    home.remove();
  });

  test("the copy taken before a migration is 0600", async () => {
    const first = await startTestServer();
    await first.server.stop();
    const next = await startTestServer({
      dataDir: first.dataDir,
      tuning: { migrations: [...migrations, { version: latestSchemaVersion + 1, name: "one more table", sql: "CREATE TABLE extra (x INTEGER)" }] },
    });
    await next.ready();
    expect(readdirSync(join(first.dataDir, "backups"))).toHaveLength(1);
    expect(openToOthers(first.dataDir)).toEqual([]);
    await next.stop();
    await first.stop(); // removes the data dir
  });
});

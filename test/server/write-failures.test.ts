import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { lockDatabase, logSays } from "../helpers/locked-database.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { sourceCommand, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { startTestServer } from "../helpers/test-server.ts";
import { apiClient, type ApiClient } from "../helpers/api-client.ts";
import { Health } from "../../src/schemas/system.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import type { DetailBody } from "../sessions/session-helpers.ts";

// A write meets a database locked by another process (or a full disk) one day: the server goes on
// serving, says so, and loses nothing it was told to keep — a streamed reply included.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What the echo agent streams for `/long N`. */
const longReply = (count: number) => Array.from({ length: count }, (_, index) => `chunk ${index} `).join("");

type Client = ApiClient;

async function echoSession(api: Client): Promise<string> {
  const project = await api.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  const session = await api.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo" });
  expect(session.status).toBe(201);
  return session.body.id;
}

test("a database locked by another process while a reply streams: the server keeps serving, says so, and the reply is written whole afterwards", async () => {
  const home = makeTempDir("atrium-locked-");
  let serve: ServeProcess | undefined = await startServe(sourceCommand, home.path);
  cleanups.push(async () => {
    serve?.child.kill("SIGKILL");
    await serve?.child.exited;
    home.remove();
  });
  const api = apiClient(serve.url, readFileSync(join(home.path, "token"), "utf8").trim());
  const sessionId = await echoSession(api);
  const count = 60_000;
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: `/long ${count}` });
  await until(
    async () => (await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
    (d) => (d.conversation[1]?.text.length ?? 0) > 1000,
  );

  const unlock = lockDatabase(join(home.path, "atrium.db"));
  try {
    // Health answers at once, and names the failing writes; reads go on.
    const health = await until(
      async () => {
        const started = performance.now();
        const body = (await api.json<Health>("GET", "/v1/health")).body;
        expect(performance.now() - started).toBeLessThan(1500);
        return body;
      },
      (body) => body.database.state === "write_failing",
      5000,
    );
    assertMatchesSchema(Health, health);
    expect(health.status).toBe("degraded");
    expect(health.database.detail).toContain("locked by another process");
    expect((await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).status).toBe(200);
    // A write the client asks for meanwhile is refused with the reason, and nothing is half-done.
    const refused = await api.json<{ error: string }>("PUT", "/v1/sync/ui", {
      entries: [{ key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }],
    });
    expect(refused.status).toBe(503);
    assertMatchesSchema(ErrorBody, refused.body);
    expect(refused.body.error).toContain("locked by another process");
    // The streamed reply met the lock too: it is kept to be written again.
    await logSays(home.path, "a reply could not be written; it is kept and written again");
  } finally {
    unlock();
  }

  const done = await until(
    async () => (await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
    (d) => d.conversation[1]?.isGenerating === false,
    60_000,
  );
  expect(serve.child.exitCode).toBeNull();
  expect(done.conversation[1]).toMatchObject({ stopReason: "end_turn" });
  // Every chunk the agent sent is there, once, in order: nothing was lost while the writes failed.
  expect(done.conversation[1]!.text).toBe(longReply(count));
  expect(done.session).toMatchObject({ sidebarState: "idle", status: null });
  const healthy = await until(
    async () => (await api.json<Health>("GET", "/v1/health")).body,
    (body) => body.status === "ok",
    5000,
  );
  expect(healthy.database.state).toBe("ok");
  serve.child.kill("SIGTERM");
  expect(await serve.child.exited).toBe(0);
  serve = undefined;
}, 90_000);

test("writes that keep failing end the turn in error with its text kept; the next turn runs once the lock is gone", async () => {
  const t = await startTestServer({ tuning: { modules: { sessions: { writeFailureLimitMs: 400 } } } });
  cleanups.push(() => t.stop());
  await t.ready();
  const api: Client = { json: (method, path, body) => t.json(method, path, body) };
  const sessionId = await echoSession(api);
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "/long 1000000" });
  await until(
    async () => (await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
    (d) => (d.conversation[1]?.text.length ?? 0) > 1000,
  );
  const unlock = lockDatabase(join(t.dataDir, "atrium.db"));
  await logSays(t.dataDir, "a turn ends: its reply cannot be written");
  unlock();
  const ended = await until(
    async () => (await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
    (d) => d.conversation[1]?.isGenerating === false,
    30_000,
  );
  expect(ended.conversation[1]!.stopReason).toBe("error");
  expect(ended.session.sidebarState).toBe("error");
  expect(ended.session.status).toMatch(/^the reply could not be written for \d+ s \(the database is locked by another process/);
  // What the agent sent before it was stopped is all there, in order.
  const text = ended.conversation[1]!.text;
  const sent = text
    .trim()
    .split(" ")
    .filter((word) => word !== "chunk")
    .map(Number);
  expect(sent.length).toBeGreaterThan(100);
  expect(sent).toEqual(sent.map((_, index) => index));
  await api.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "after" });
  const next = await until(
    async () => (await api.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
    (d) => d.conversation[3]?.isGenerating === false,
    10_000,
  );
  expect(next.conversation[3]).toMatchObject({ text: "Echo: after", stopReason: "end_turn" });
}, 60_000);

/** A tmpfs of `sizeMiB` at a new temp dir: a real disk that can be filled. Linux, as root (CI is). */
function smallDisk(sizeMiB: number): { path: string; fill(): void; free(): void; remove(): Promise<void> } {
  const dir = makeTempDir("atrium-full-disk-");
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${sizeMiB}m,mode=0700`, "tmpfs", dir.path]);
  if (mount.exitCode !== 0) throw new Error(`mount tmpfs failed: ${mount.stderr.toString()}`);
  const filler = join(dir.path, "filler");
  return {
    path: dir.path,
    fill: () => void Bun.spawnSync(["dd", "if=/dev/zero", `of=${filler}`, "bs=16k"]),
    free: () => void Bun.spawnSync(["rm", "-f", filler]),
    // A process that still has a file or its cwd there (an agent the server started) keeps the mount
    // busy for a moment: tried again, then detached lazily, so no mount is ever left behind.
    remove: async () => {
      await until(
        async () => Bun.spawnSync(["umount", dir.path]).exitCode === 0,
        (unmounted) => unmounted,
        3000,
      ).catch(() => undefined);
      if (Bun.spawnSync(["mountpoint", "-q", dir.path]).exitCode === 0) Bun.spawnSync(["umount", "-l", dir.path]);
      dir.remove();
    },
  };
}

const canMount = process.platform === "linux" && process.getuid?.() === 0;

test.if(canMount)(
  "a full disk: writes answer 507 saying so, health says why, uploads leave nothing behind, and the server starts and serves reads on it",
  async () => {
    const disk = smallDisk(8);
    let serve: ServeProcess | undefined = await startServe(sourceCommand, disk.path);
    cleanups.push(async () => {
      // Gracefully: the server stops the agents it started, which hold files on the disk.
      serve?.child.kill("SIGTERM");
      await serve?.child.exited;
      await disk.remove();
    });
    const api = () => apiClient(serve!.url, readFileSync(join(disk.path, "token"), "utf8").trim());
    const sessionId = await echoSession(api());
    await api().json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "before the disk filled" });
    await until(
      async () => (await api().json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).body,
      (d) => d.conversation[1]?.isGenerating === false,
    );
    const entry = (value: unknown) => ({ entries: [{ key: "k", value, timestamp: { wallMs: Date.now(), counter: 0, deviceId: "d" } }] });

    disk.fill();
    // Enough rows that SQLite must grow the file (small writes may still fit in free pages).
    let refused: { status: number; body: { error: string } } | undefined;
    for (let attempt = 0; attempt < 50 && !refused; attempt++) {
      const answer = await api().json<{ error: string }>("PUT", "/v1/sync/bulk", entry("x".repeat(200_000)));
      if (answer.status !== 200) refused = answer;
    }
    expect(refused?.status).toBe(507);
    assertMatchesSchema(ErrorBody, refused!.body);
    expect(refused!.body.error).toContain("disk holding Atrium's data is full");
    const health = (await api().json<Health>("GET", "/v1/health")).body;
    expect(health).toMatchObject({ status: "degraded", database: { state: "write_failing" } });
    expect(health.database.detail).toContain("full");
    const upload = await api().json<{ error: string }>("POST", "/v1/files", {
      name: "big.bin",
      mimeType: "application/octet-stream",
      contentBase64: Buffer.alloc(4 * 1024 * 1024).toString("base64"),
    });
    expect(upload.status).toBe(507);
    // Nothing of it anywhere under files/ (each upload has a folder of its own).
    expect(
      Bun.spawnSync(["sh", "-c", `find ${join(disk.path, "files")} -mindepth 1 | wc -l`])
        .stdout.toString()
        .trim(),
    ).toBe("0");

    // Stopped and started again on the full disk: it serves what it has.
    serve.child.kill("SIGTERM");
    await serve.child.exited;
    serve = await startServe(sourceCommand, disk.path);
    const reread = await api().json<DetailBody>("GET", `/v1/sessions/${sessionId}`);
    expect(reread.status).toBe(200);
    expect(reread.body.conversation.map((item) => item.text)).toEqual(["before the disk filled", "Echo: before the disk filled"]);
    expect((await api().json<Health>("GET", "/v1/health")).status).toBe(200);

    disk.free();
    expect((await api().json("PUT", "/v1/sync/ui", entry("dark"))).status).toBe(200);
    const healthy = (await api().json<Health>("GET", "/v1/health")).body;
    expect(healthy.database.state).toBe("ok");
  },
  60_000,
);

import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { lockDatabase, logSays } from "../helpers/locked-database.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Health } from "../../src/schemas/system.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { startSessionServer, type DetailBody, type SessionServerOptions } from "../sessions/session-helpers.ts";
import { mergeOptions } from "../helpers/test-server.ts";

// A write meets a database locked by another process (or a full disk) one day: the server goes on
// serving, says so, and loses nothing it was told to keep — a streamed reply included.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The lines of a reply the agent streams, each its own, so that a line lost, doubled or moved shows. */
const lines = (from: number, count: number) => Array.from({ length: count }, (_, index) => `line ${from + index} `.padEnd(1000, "."));

/**
 * A server whose scripted agent runs in this process, and a session of it with the agent reading
 * `script`. Published deltas are stored 50 ms later (a second on a real server): the store that meets
 * the lock comes sooner; and a write gives up on the lock after 50 ms (500 ms on a real server), so
 * each write the lock refuses stalls the test less.
 */
async function scriptedSession(script: Record<string, unknown[]>, options: SessionServerOptions = {}) {
  const t = await startSessionServer(mergeOptions<SessionServerOptions>({ agents: "in-process", tuning: { writeBehindMs: 50, busyTimeoutMs: 50 } }, options));
  cleanups.push(() => t.cleanup());
  t.script({ prompts: script });
  const session = await t.newSession();
  return { t, sessionId: session.id };
}

test("a database locked by another process while a reply streams: the server keeps serving, says so, and the reply is written whole afterwards", async () => {
  // The test lets the agent go on at each gate: text published while the database is locked (stored
  // later, so its store fails first), text that then cannot even be published and waits (150 KB: more
  // than one delta holds), and the reply's end once the lock is gone.
  const before = lines(0, 10);
  const published = lines(10, 150);
  const kept = lines(160, 150);
  const after = lines(310, 10);
  const say = (chunks: string[]) => chunks.map((chunk) => ({ chunk }));
  const { t, sessionId } = await scriptedSession({
    reply: [...say(before), { gate: "locked" }, ...say(published), { gate: "failing" }, ...say(kept), { gate: "unlocked" }, ...say(after)],
  });
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "reply" });
  await t.until(sessionId, (d) => d.conversation[1]?.text === before.join(""));

  const unlock = lockDatabase(join(t.dataDir, "atrium.db"));
  try {
    t.agents.openGate("locked");
    // Health answers at once, and names the failing writes; reads go on.
    const health = await until(
      async () => {
        const started = performance.now();
        const body = (await t.json<Health>("GET", "/v1/health")).body;
        expect(performance.now() - started).toBeLessThan(1500);
        return body;
      },
      (body) => body.database.state === "write_failing",
      5000,
    );
    assertMatchesSchema(Health, health);
    expect(health.status).toBe("degraded");
    expect(health.database.detail).toContain("locked by another process");
    expect((await t.json<DetailBody>("GET", `/v1/sessions/${sessionId}`)).status).toBe(200);
    t.agents.openGate("failing");
    // A write the client asks for meanwhile is refused with the reason, and nothing is half-done.
    const refused = await t.json<{ error: string }>("PUT", "/v1/sync/ui", {
      entries: [{ key: "k", value: 1, timestamp: { wallMs: 1, counter: 0, deviceId: "d" } }],
    });
    expect(refused.status).toBe(503);
    assertMatchesSchema(ErrorBody, refused.body);
    expect(refused.body.error).toContain("locked by another process");
    // The streamed reply met the lock too: it is kept to be written again.
    await logSays(t.dataDir, "a reply could not be written; it is kept and written again");
  } finally {
    unlock();
  }
  t.agents.openGate("unlocked");

  const done = await t.until(sessionId, (d) => d.conversation[1]?.isGenerating === false, 30_000);
  expect(done.conversation[1]).toMatchObject({ stopReason: "end_turn" });
  // Every line the agent sent is there, once, in order: nothing was lost while the writes failed.
  expect(done.conversation[1]!.text).toBe([...before, ...published, ...kept, ...after].join(""));
  expect(done.session).toMatchObject({ sidebarState: "idle", status: null });
  const healthy = await until(
    async () => (await t.json<Health>("GET", "/v1/health")).body,
    (body) => body.status === "ok",
    5000,
  );
  expect(healthy.database.state).toBe("ok");
});

test("writes that keep failing end the turn in error with its text kept; the next turn runs once the lock is gone", async () => {
  const { t, sessionId } = await scriptedSession(
    {
      long: [
        { chunk: "before the lock. " },
        { gate: "locked" },
        { chunk: "while locked, " },
        { gate: "failing" },
        { chunk: "and still locked." },
        { waitForCancel: true },
      ],
      after: [{ chunk: "after the lock" }],
    },
    { tuning: { modules: { sessions: { writeFailureLimitMs: 100 } } } },
  );
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "long" });
  await t.until(sessionId, (d) => d.conversation[1]?.text === "before the lock. ");
  const unlock = lockDatabase(join(t.dataDir, "atrium.db"));
  t.agents.openGate("locked");
  // What it published could not be stored: what it sends next is kept, and tried again until the limit.
  await until(
    async () => (await t.json<Health>("GET", "/v1/health")).body,
    (body) => body.database.state === "write_failing",
  );
  t.agents.openGate("failing");
  await logSays(t.dataDir, "a turn ends: its reply cannot be written");
  unlock();
  const ended = await t.until(sessionId, (d) => d.conversation[1]?.isGenerating === false, 30_000);
  expect(ended.conversation[1]!.stopReason).toBe("error");
  expect(ended.session.sidebarState).toBe("error");
  expect(ended.session.status).toMatch(/^the reply could not be written for \d+ s \(the database is locked by another process/);
  // What the agent sent before it was stopped is all there, in order.
  expect(ended.conversation[1]!.text).toBe("before the lock. while locked, and still locked.");
  await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "after" });
  const next = await t.until(sessionId, (d) => d.conversation[3]?.isGenerating === false, 10_000);
  expect(next.conversation[3]).toMatchObject({ text: "after the lock", stopReason: "end_turn" });
});

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
    cleanups.push(() => disk.remove());
    const { t, sessionId } = await scriptedSession({ "before the disk filled": [{ chunk: "the reply before" }] }, { dataDir: disk.path });
    await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "before the disk filled" });
    await t.until(sessionId, (d) => d.conversation[1]?.isGenerating === false);
    const entry = (value: unknown) => ({ entries: [{ key: "k", value, timestamp: { wallMs: Date.now(), counter: 0, deviceId: "d" } }] });

    disk.fill();
    // Enough rows that SQLite must grow the file (small writes may still fit in free pages).
    let refused: { status: number; body: { error: string } } | undefined;
    for (let attempt = 0; attempt < 50 && !refused; attempt++) {
      const answer = await t.json<{ error: string }>("PUT", "/v1/sync/bulk", entry("x".repeat(200_000)));
      if (answer.status !== 200) refused = answer;
    }
    expect(refused?.status).toBe(507);
    assertMatchesSchema(ErrorBody, refused!.body);
    expect(refused!.body.error).toContain("disk holding Atrium's data is full");
    const health = (await t.json<Health>("GET", "/v1/health")).body;
    expect(health).toMatchObject({ status: "degraded", database: { state: "write_failing" } });
    expect(health.database.detail).toContain("full");
    const upload = await t.json<{ error: string }>("POST", "/v1/files", {
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
    const restarted = await t.restart();
    cleanups.push(() => restarted.stop());
    const reread = await restarted.json<DetailBody>("GET", `/v1/sessions/${sessionId}`);
    expect(reread.status).toBe(200);
    expect(reread.body.conversation.map((item) => item.text)).toEqual(["before the disk filled", "the reply before"]);
    expect((await restarted.json<Health>("GET", "/v1/health")).status).toBe(200);

    disk.free();
    expect((await restarted.json("PUT", "/v1/sync/ui", entry("dark"))).status).toBe(200);
    const healthy = (await restarted.json<Health>("GET", "/v1/health")).body;
    expect(healthy.database.state).toBe("ok");
  },
  60_000,
);

/**
 * Writes replace a file at once (issue 38): a reader in another process never sees part of a write, and a
 * writer killed in the middle leaves the old file or the new one, whole. Limits refuse larger files.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { filesProject, query } from "./files-fixtures.ts";

/** Larger than a page and than one write call's chunk, so a torn file would show; small enough to write often. */
const BYTES = 1024 * 1024;
const LIMIT = 2 * BYTES;
let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer({ tuning: { modules: { projectFiles: { limits: { maxReadBytes: LIMIT, maxWriteBytes: LIMIT } } } } });
});
beforeEach(() => {
  dir = makeTempDir("atrium-files-atomic-");
});
afterEach(() => dir.remove());
afterAll(() => t.stop());

/** A child process started from a fixture, once it printed its first line. */
async function started(fixture: string, args: string[]) {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", fixture), ...args], { stdout: "pipe" });
  const reader = child.stdout.getReader();
  await reader.read();
  return { child, reader };
}

test("a reader beside the writes sees the old file or the new, never part of one", async () => {
  writeFileSync(join(dir.path, "big.txt"), Buffer.alloc(BYTES, "A"));
  const { base } = await filesProject(t, dir.path);
  const url = `${base}/content${query({ path: "big.txt" })}`;
  const { child, reader } = await started("read-forever.ts", [join(dir.path, "big.txt"), String(BYTES), "600"]);
  let writes = 0;
  while (child.exitCode === null && writes < 30) {
    const written = await t.api(url, { method: "PUT", body: Buffer.alloc(BYTES, writes % 2 === 0 ? "B" : "A"), headers: { "if-match": "*" } });
    expect(written.status).toBe(200);
    await written.body?.cancel();
    writes++;
  }
  const report = JSON.parse(new TextDecoder().decode((await reader.read()).value)) as { reads: number; torn: number; seen: string[] };
  await child.exited;
  expect(report.torn).toBe(0);
  expect(report.reads).toBeGreaterThan(5);
  expect(report.seen).toEqual(["A", "B"]);
  expect(readdirSync(dir.path)).toEqual(["big.txt"]);
});

test("a writer killed in the middle of writes leaves the old file or the new one, whole", async () => {
  const file = join(dir.path, "killed.txt");
  writeFileSync(file, Buffer.alloc(BYTES, "A"));
  for (let attempt = 0; attempt < 4; attempt++) {
    const { child } = await started("write-forever.ts", [dir.path, "killed.txt", String(BYTES)]);
    await Bun.sleep(20 + attempt * 15);
    child.kill("SIGKILL");
    await child.exited;
    const content = readFileSync(file);
    expect(content.length).toBe(BYTES);
    const first = content[0]!;
    expect(content.indexOf(first === 65 ? 66 : 65)).toBe(-1);
  }
});

test("files over the limits are not read (413) nor written (413), and nothing changes", async () => {
  writeFileSync(join(dir.path, "huge.bin"), Buffer.alloc(LIMIT + 1, 1));
  writeFileSync(join(dir.path, "small.txt"), "small\n");
  const { base } = await filesProject(t, dir.path);
  const read = await t.json<{ error: string }>("GET", `${base}/content${query({ path: "huge.bin" })}`);
  expect(read.status).toBe(413);
  expect(read.body.error).toContain("not read");
  const write = await t.api(`${base}/content${query({ path: "small.txt" })}`, {
    method: "PUT",
    body: Buffer.alloc(LIMIT + 1, "x"),
    headers: { "if-match": "*" },
  });
  expect(write.status).toBe(413);
  expect(readFileSync(join(dir.path, "small.txt"), "utf8")).toBe("small\n");
});

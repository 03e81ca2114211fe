/**
 * Searching a project's files (issue 38): by name (fuzzy, best first, over a kept list that a change
 * through the interface drops and that is read again when old), and by content with ripgrep when it is
 * on the PATH, else `git grep` in a working tree, else the built-in scan; paged, with lines and snippets.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FileNameIndex } from "../../src/project-files/file-name-index.ts";
import { FileSearch } from "../../src/project-files/file-search.ts";
import { FolderAccess } from "../../src/project-files/folder-access.ts";
import { type FileSearchHit, FileSearchHitList } from "../../src/schemas/project-files.ts";
import { git } from "../helpers/git-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { filesProject, query } from "./files-fixtures.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
/** A PATH with no ripgrep on it: content is searched with git grep, or scanned. */
const noTools = makeTempDir("atrium-no-tools-");
beforeAll(async () => {
  t = await startTestServer({ tuning: { modules: { projectFiles: { searchPath: noTools.path, nameIndex: { refreshMs: 0 } } } } });
});
beforeEach(() => {
  dir = makeTempDir("atrium-files-search-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  await t.stop();
  noTools.remove();
});

const FILES: Record<string, string> = {
  ".gitignore": "dist/\n",
  "src/server/http-server.ts": "export function listen() {\n  return 'Listening on port';\n}\n",
  "src/server/router.ts": "// routes\nconst table = [];\n",
  "src/client/http-client.ts": "export const get = () => fetch('/listening');\n",
  "docs/hosting.md": "# Hosting\nThe server listens on a port.\n",
  "dist/http-server.js": "listen();\n",
  "assets/logo.bin": "\0\0listen\0",
  [`long/${"x".repeat(10)}.txt`]: `${"a".repeat(500)} LISTEN here ${"b".repeat(500)}\n`,
};

function folderWith(files: Record<string, string>, asRepository: boolean): string {
  const root = join(dir.path, asRepository ? "repo" : "plain");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  if (asRepository) {
    git(["init", "--quiet", root]);
    git(["add", "src", ".gitignore"], root);
  }
  return root;
}

async function search(base: string, parameters: Record<string, string | number>): Promise<{ hits: FileSearchHit[]; next: string | null }> {
  const response = await t.api(`${base}/search${query(parameters)}`);
  expect(response.status).toBe(200);
  const hits = (await response.json()) as FileSearchHit[];
  assertMatchesSchema(FileSearchHitList, hits);
  return { hits, next: response.headers.get("link")?.match(/^<([^>]+)>/)?.[1] ?? null };
}

test("by name: letters in order, the file's own name first, tracked and untracked files but not ignored ones; paged", async () => {
  const root = folderWith(FILES, true);
  const { base } = await filesProject(t, root);
  const found = await search(base, { q: "httpserv" });
  expect(found.hits.map((hit) => hit.path)).toEqual(["src/server/http-server.ts"]);
  expect(found.hits[0]).toEqual({ path: "src/server/http-server.ts", line: null, snippet: null });
  const http = await search(base, { q: "http" });
  expect(http.hits.map((hit) => hit.path)).toEqual(["src/client/http-client.ts", "src/server/http-server.ts"]);
  // Untracked files count; dist/ is ignored.
  expect((await search(base, { q: "hosting" })).hits.map((hit) => hit.path)).toEqual(["docs/hosting.md"]);
  expect((await search(base, { q: "dist" })).hits).toEqual([]);

  const all: string[] = [];
  let next: string | null = `${base}/search${query({ q: "s", limit: 2 })}`;
  while (next) {
    const response: Response = await t.api(next);
    all.push(...((await response.json()) as FileSearchHit[]).map((hit) => hit.path));
    next = response.headers.get("link")?.match(/^<([^>]+)>/)?.[1] ?? null;
  }
  expect(all.length).toBe(new Set(all).size);
  expect(all.sort()).toEqual(["assets/logo.bin", "docs/hosting.md", "src/client/http-client.ts", "src/server/http-server.ts", "src/server/router.ts"]);
});

test("the kept list: a file written through the interface is found at once, one an agent made once the list is read again", async () => {
  const root = folderWith(FILES, true);
  const { base } = await filesProject(t, root);
  expect((await search(base, { q: "fresh" })).hits).toEqual([]);
  const put = await t.api(`${base}/content${query({ path: "src/fresh-file.ts" })}`, { method: "PUT", body: "x", headers: { "if-none-match": "*" } });
  expect(put.status).toBe(201);
  expect((await search(base, { q: "freshfile" })).hits.map((hit) => hit.path)).toEqual(["src/fresh-file.ts"]);
  writeFileSync(join(root, "src", "agent-made.ts"), "y");
  // refreshMs 0: each search answers from the kept list and reads it again behind the answer.
  await until(
    () => search(base, { q: "agentmade" }),
    (found) => found.hits.length === 1,
  );
});

test("by content with git grep in a working tree: every matching line in any case, with its number and a snippet cut around the match", async () => {
  const root = folderWith(FILES, true);
  const { base } = await filesProject(t, root);
  const { hits } = await search(base, { q: "listen", mode: "content" });
  expect(hits.map((hit) => [hit.path, hit.line])).toEqual([
    ["docs/hosting.md", 2],
    [`long/${"x".repeat(10)}.txt`, 1],
    ["src/client/http-client.ts", 1],
    ["src/server/http-server.ts", 1],
    ["src/server/http-server.ts", 2],
  ]);
  expect(hits[0]!.snippet).toBe("The server listens on a port.");
  const long = hits[1]!.snippet!;
  expect(long.length).toBe(200);
  expect(long).toContain("LISTEN here");

  const first = await search(base, { q: "listen", mode: "content", limit: 3 });
  expect(first.hits.length).toBe(3);
  const second = await t.api(first.next!);
  expect(((await second.json()) as FileSearchHit[]).map((hit) => [hit.path, hit.line])).toEqual([
    ["src/server/http-server.ts", 1],
    ["src/server/http-server.ts", 2],
  ]);
  expect(second.headers.get("link")).toBeNull();
});

test("by content in a plain folder without ripgrep: the built-in scan, text files only, never through a link out", async () => {
  const root = folderWith(FILES, false);
  const outside = join(dir.path, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "listen to the secret\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "out-link.txt"));
  const { base } = await filesProject(t, root);
  const { hits } = await search(base, { q: "LISTEN", mode: "content" });
  expect(hits.map((hit) => [hit.path, hit.line])).toEqual([
    ["dist/http-server.js", 1],
    ["docs/hosting.md", 2],
    [`long/${"x".repeat(10)}.txt`, 1],
    ["src/client/http-client.ts", 1],
    ["src/server/http-server.ts", 1],
    ["src/server/http-server.ts", 2],
  ]);
});

test.skipIf(!Bun.which("rg"))("by content with ripgrep on the PATH: the same lines, .gitignore respected", async () => {
  const root = folderWith(FILES, true);
  const search = new FileSearch({ names: new FileNameIndex() });
  const access = new FolderAccess(root);
  expect(await search.contentTool(root)).toBe("ripgrep");
  const page = await search.byContent(access, { q: "listen" });
  expect(page.items.map((hit) => [hit.path, hit.line])).toEqual([
    ["docs/hosting.md", 2],
    [`long/${"x".repeat(10)}.txt`, 1],
    ["src/client/http-client.ts", 1],
    ["src/server/http-server.ts", 1],
    ["src/server/http-server.ts", 2],
  ]);
});

test("which tool searches content: ripgrep only where it is on the PATH searched", async () => {
  const repo = folderWith(FILES, true);
  const withoutRipgrep = new FileSearch({ names: new FileNameIndex(), path: noTools.path });
  expect(await withoutRipgrep.contentTool(repo)).toBe("git grep");
  const plain = join(dir.path, "plain-only");
  mkdirSync(plain);
  expect(await withoutRipgrep.contentTool(plain)).toBe("scan");
});

test("the kept lists are bounded: past maxFolders, the list read longest ago is dropped and read afresh when asked again", async () => {
  const first = folderWith({ "a.txt": "a" }, false);
  const second = join(dir.path, "second");
  mkdirSync(second);
  const names = new FileNameIndex({ refreshMs: 60_000, maxWalkFiles: 100, maxFolders: 1 });
  expect((await names.files(first)).paths).toEqual(["a.txt"]);
  writeFileSync(join(first, "b.txt"), "b");
  expect((await names.files(first)).paths).toEqual(["a.txt"]);
  await names.files(second);
  expect((await names.files(first)).paths).toEqual(["a.txt", "b.txt"]);
});

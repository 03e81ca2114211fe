/**
 * A project's files (issue 38): a folder listed (folders first, ignored files hidden, git status, paged),
 * a file read (type, ETag, Range, HEAD) and changed (If-Match, If-None-Match, delete, move) through the
 * interface on real files and real git, each change told as `files.changed`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { etagOf } from "../../src/project-files/file-content.ts";
import { FileEntry, FileEntryList, FileMoved, FileWritten } from "../../src/schemas/project-files.ts";
import { git } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { filesProject, query } from "./files-fixtures.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-files-");
});
afterEach(() => dir.remove());
afterAll(() => t.stop());

/** A repository with a commit, a change, an untracked file, ignored files and a link. */
function repository(): string {
  const repo = join(dir.path, "repo");
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  git(["init", "--quiet", repo]);
  writeFileSync(join(repo, ".gitignore"), "build/\n*.log\n");
  writeFileSync(join(repo, "README.md"), "# hello\n");
  writeFileSync(join(repo, "src", "main.ts"), "export const one = 1;\n");
  writeFileSync(join(repo, "src", "deep", "kept.ts"), "kept\n");
  git(["add", "."], repo);
  git(["-c", "user.name=T", "-c", "user.email=t@t.invalid", "commit", "--quiet", "-m", "first"], repo);
  writeFileSync(join(repo, "src", "deep", "kept.ts"), "changed\n");
  writeFileSync(join(repo, "new.txt"), "new\n");
  mkdirSync(join(repo, "build"));
  writeFileSync(join(repo, "build", "out.js"), "built\n");
  writeFileSync(join(repo, "debug.log"), "log\n");
  symlinkSync("README.md", join(repo, "link.md"));
  return repo;
}

async function list(base: string, parameters: Record<string, string | number | boolean> = {}): Promise<FileEntry[]> {
  const response = await t.api(`${base}${query(parameters)}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as FileEntry[];
  assertMatchesSchema(FileEntryList, body);
  return body;
}

test("a folder's entries: folders first, ignored ones hidden unless asked, each with its git status", async () => {
  const repo = repository();
  const { base } = await filesProject(t, repo);

  const root = await list(base);
  expect(root.map((entry) => [entry.name, entry.type, entry.gitStatus])).toEqual([
    ["src", "dir", "modified"],
    [".gitignore", "file", null],
    ["README.md", "file", null],
    ["link.md", "symlink", "untracked"],
    ["new.txt", "file", "untracked"],
  ]);
  expect(root.find((entry) => entry.name === "README.md")).toMatchObject({ path: "README.md", size: 8 });

  const all = await list(base, { ignored: true });
  expect(all.map((entry) => [entry.name, entry.gitStatus])).toEqual([
    [".git", null],
    ["build", "ignored"],
    ["src", "modified"],
    [".gitignore", null],
    ["README.md", null],
    ["debug.log", "ignored"],
    ["link.md", "untracked"],
    ["new.txt", "untracked"],
  ]);

  const deep = await list(base, { path: "src/deep" });
  expect(deep.map((entry) => [entry.path, entry.gitStatus])).toEqual([["src/deep/kept.ts", "modified"]]);
  // A plain folder (no git): everything, no status.
  const plain = join(dir.path, "plain");
  mkdirSync(join(plain, "b"), { recursive: true });
  writeFileSync(join(plain, "a.log"), "x");
  expect((await list((await filesProject(t, plain)).base)).map((entry) => [entry.name, entry.gitStatus])).toEqual([
    ["b", null],
    ["a.log", null],
  ]);
});

test("a large folder comes a page at a time, with the Link header, folders first throughout", async () => {
  const folder = join(dir.path, "many");
  mkdirSync(folder);
  for (let index = 0; index < 7; index++) mkdirSync(join(folder, `dir-${index}`));
  for (let index = 0; index < 23; index++) writeFileSync(join(folder, `file-${String(index).padStart(2, "0")}.txt`), "x");
  const { base } = await filesProject(t, folder);
  const seen: string[] = [];
  let next: string | null = `${base}?limit=10`;
  while (next) {
    const response: Response = await t.api(next);
    expect(response.status).toBe(200);
    expect(response.headers.get("atrium-event-cursor")).toMatch(/^\d+$/);
    const page = (await response.json()) as FileEntry[];
    expect(page.length).toBeLessThanOrEqual(10);
    seen.push(...page.map((entry) => entry.name));
    next = response.headers.get("link")?.match(/^<([^>]+)>; rel="next"$/)?.[1] ?? null;
  }
  expect(seen).toEqual([
    ...Array.from({ length: 7 }, (_, index) => `dir-${index}`),
    ...Array.from({ length: 23 }, (_, index) => `file-${String(index).padStart(2, "0")}.txt`),
  ]);
  expect((await t.json("GET", `${base}?cursor=bm90LW91cnM`)).status).toBe(400);
});

test("a file's bytes: its type, a strong ETag of the content, text or binary, Range and HEAD", async () => {
  const repo = repository();
  writeFileSync(join(repo, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  writeFileSync(join(repo, "script.py"), "print('hi')\n");
  const { base } = await filesProject(t, repo);
  const content = `${base}/content`;

  const readme = await t.api(`${content}${query({ path: "README.md" })}`);
  expect(readme.status).toBe(200);
  expect(readme.headers.get("content-type")).toBe("text/markdown");
  expect(readme.headers.get("etag")).toBe(etagOf(Buffer.from("# hello\n")));
  expect(readme.headers.get("atrium-file-kind")).toBe("text");
  expect(readme.headers.get("accept-ranges")).toBe("bytes");
  expect(readme.headers.get("x-content-type-options")).toBe("nosniff");
  expect(await readme.text()).toBe("# hello\n");

  const png = await t.api(`${content}${query({ path: "logo.png" })}`);
  expect([png.headers.get("content-type"), png.headers.get("atrium-file-kind")]).toEqual(["image/png", "binary"]);
  expect(new Uint8Array(await png.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  const python = await t.api(`${content}${query({ path: "script.py" })}`);
  expect(python.headers.get("content-type")).toBe("text/plain;charset=utf-8");
  await python.body?.cancel();
  // Through a link inside the folder: the file it names.
  expect(await (await t.api(`${content}${query({ path: "link.md" })}`)).text()).toBe("# hello\n");

  const ranged = await t.api(`${content}${query({ path: "README.md" })}`, { headers: { range: "bytes=2-6" } });
  expect(ranged.status).toBe(206);
  expect(ranged.headers.get("content-range")).toBe("bytes 2-6/8");
  expect(await ranged.text()).toBe("hello");
  const suffix = await t.api(`${content}${query({ path: "README.md" })}`, { headers: { range: "bytes=-3" } });
  expect([suffix.status, await suffix.text()]).toEqual([206, "lo\n"]);
  const stale = await t.api(`${content}${query({ path: "README.md" })}`, { headers: { range: "bytes=0-1", "if-range": '"old"' } });
  expect([stale.status, await stale.text()]).toEqual([200, "# hello\n"]);
  const beyond = await t.api(`${content}${query({ path: "README.md" })}`, { headers: { range: "bytes=50-" } });
  expect(beyond.status).toBe(416);
  expect(beyond.headers.get("content-range")).toBe("bytes */8");
  expect(((await beyond.json()) as { error: string }).error).toContain("not within");

  const head = await t.api(`${content}${query({ path: "README.md" })}`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(head.headers.get("etag")).toBe(readme.headers.get("etag"));
  expect(head.headers.get("content-length")).toBe("8");
  expect(await head.text()).toBe("");

  expect((await t.json("GET", `${content}${query({ path: "missing.txt" })}`)).status).toBe(404);
  expect((await t.json("GET", `${content}${query({ path: "src" })}`)).status).toBe(400);
});

test("writes: If-Match replaces what was read (412 once an agent changed it), If-None-Match: * only creates, 428 without either; mode kept", async () => {
  const repo = repository();
  chmodSync(join(repo, "README.md"), 0o640);
  const { base, projectId } = await filesProject(t, repo);
  const url = `${base}/content${query({ path: "README.md" })}`;
  const etag = (await t.api(url, { method: "HEAD" })).headers.get("etag")!;
  const after = await t.ready();

  const put = (target: string, body: string, headers: Record<string, string>) => t.api(target, { method: "PUT", body, headers });
  const written = await put(url, "# edited\n", { "if-match": etag });
  expect(written.status).toBe(200);
  const answer = (await written.json()) as FileWritten;
  assertMatchesSchema(FileWritten, answer);
  expect(answer).toMatchObject({ created: false, etag: etagOf(Buffer.from("# edited\n")), entry: { path: "README.md", type: "file", size: 9 } });
  expect(written.headers.get("etag")).toBe(answer.etag);
  expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# edited\n");
  expect(statSync(join(repo, "README.md")).mode & 0o777).toBe(0o640);

  // The same old ETag again: the file changed since (this time by the client itself; an agent's write is the same).
  writeFileSync(join(repo, "README.md"), "# the agent's\n");
  const conflict = await put(url, "# mine\n", { "if-match": answer.etag });
  expect(conflict.status).toBe(412);
  expect(((await conflict.json()) as { error: string }).error).toContain("changed since it was read");
  expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# the agent's\n");

  const unconditional = await put(url, "# blind\n", {});
  expect(unconditional.status).toBe(428);
  expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# the agent's\n");

  const createUrl = `${base}/content${query({ path: "src/created.ts" })}`;
  const created = await put(createUrl, "created\n", { "if-none-match": "*" });
  expect(created.status).toBe(201);
  expect(((await created.json()) as FileWritten).created).toBe(true);
  const again = await put(createUrl, "over\n", { "if-none-match": "*" });
  expect(again.status).toBe(412);
  expect(readFileSync(join(repo, "src", "created.ts"), "utf8")).toBe("created\n");
  expect((await put(`${base}/content${query({ path: "nowhere/x.ts" })}`, "x", { "if-none-match": "*" })).status).toBe(404);
  // No temporary file is left beside them.
  expect((await list(base, { path: "src" })).map((entry) => entry.name)).toEqual(["deep", "created.ts", "main.ts"]);

  const events = (await replayedEvents(t, after)).filter((event) => event.kind === "files.changed");
  expect(events.map((event) => event.payload)).toEqual([
    { projectId, folderPath: realpathSync(repo), change: "modified", path: "README.md", fromPath: null },
    { projectId, folderPath: realpathSync(repo), change: "created", path: "src/created.ts", fromPath: null },
  ]);
});

test("delete with If-Match, move without replacing; each told as files.changed; bad input changes nothing", async () => {
  const repo = repository();
  const { base } = await filesProject(t, repo);
  const after = await t.ready();
  const contentOf = (path: string) => `${base}/content${query({ path })}`;

  expect((await t.api(contentOf("new.txt"), { method: "DELETE" })).status).toBe(428);
  expect((await t.api(contentOf("new.txt"), { method: "DELETE", headers: { "if-match": '"stale"' } })).status).toBe(412);
  expect(existsSync(join(repo, "new.txt"))).toBe(true);
  const deleted = await t.api(contentOf("new.txt"), { method: "DELETE", headers: { "if-match": etagOf(Buffer.from("new\n")) } });
  expect(deleted.status).toBe(200);
  assertMatchesSchema(FileEntry, await deleted.json());
  expect(existsSync(join(repo, "new.txt"))).toBe(false);
  expect((await t.api(contentOf("src"), { method: "DELETE", headers: { "if-match": "*" } })).status).toBe(400);

  const moved = await t.json<FileMoved>("POST", `${base}/move`, { from: "src/deep", to: "moved" });
  expect(moved.status).toBe(200);
  assertMatchesSchema(FileMoved, moved.body);
  expect([moved.body.from.path, moved.body.to.path, moved.body.to.type]).toEqual(["src/deep", "moved", "dir"]);
  expect(readFileSync(join(repo, "moved", "kept.ts"), "utf8")).toBe("changed\n");

  const refusals: Array<[unknown, number]> = [
    [{ from: "README.md", to: "src/main.ts" }, 409],
    [{ from: "absent.txt", to: "b.txt" }, 404],
    [{ from: "moved", to: "moved/inside" }, 400],
    [{ from: "README.md", to: "../out.md" }, 400],
    [{ from: "README.md" }, 400],
  ];
  for (const [body, status] of refusals) {
    const refused = await t.json<{ error: string }>("POST", `${base}/move`, body);
    expect([refused.status, typeof refused.body.error]).toEqual([status, "string"]);
  }
  expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# hello\n");
  expect(readFileSync(join(repo, "src", "main.ts"), "utf8")).toBe("export const one = 1;\n");

  const events = (await replayedEvents(t, after)).filter((event) => event.kind === "files.changed").map((event) => event.payload);
  expect(events).toMatchObject([
    { change: "deleted", path: "new.txt", fromPath: null },
    { change: "moved", path: "moved", fromPath: "src/deep" },
  ]);
});

test("the folder is named by location, worktree or session; unknown ones are 404, two at once 400", async () => {
  const repo = repository();
  const { base, locationId, projectId } = await filesProject(t, repo);
  expect((await list(base, { locationId })).length).toBe(5);
  await t.ready();
  const session = await t.json<{ id: string; cwd: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo" });
  expect(session.status).toBe(201);
  expect((await list(base, { sessionId: session.body.id })).map((entry) => entry.name)).toContain("README.md");
  expect((await t.json("GET", `${base}${query({ locationId: "loc_nope" })}`)).status).toBe(404);
  expect((await t.json("GET", `${base}${query({ worktreeId: "wt_nope" })}`)).status).toBe(404);
  expect((await t.json("GET", `${base}${query({ sessionId: "ses_nope" })}`)).status).toBe(404);
  expect((await t.json("GET", `${base}${query({ locationId, worktreeId: "wt_nope" })}`)).status).toBe(400);
  expect((await t.json("GET", `/v1/projects/prj_nope/files`)).status).toBe(404);
  expect((await t.json("GET", `${base}${query({ path: "README.md" })}`)).status).toBe(400);
  expect((await t.json("GET", `${base}/search${query({ q: "x", mode: "other" })}`)).status).toBe(400);
});

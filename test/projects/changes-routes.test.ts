/**
 * Working-tree changes (issue 28): what changed in a project's folder, a worktree or a session's
 * folder against HEAD, read with real git on a real repository, bounded, paged, and refused clearly
 * for a folder that is not a repository.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChangeList, FileDiff } from "../../src/schemas/changes.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { folderTemplate, git, makeBareRepo } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
// One server for the file (its first harness scan done, for the echo sessions); a folder of its own for each test.
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-changes-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  changed.remove();
  await t.stop();
});

/** A repository with three committed files, then every kind of change a working tree can have. */
const changed = folderTemplate((folder) => {
  const repo = join(folder, "repo");
  mkdirSync(repo);
  git(["init", "--quiet", repo]);
  writeFileSync(join(repo, "keep.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(repo, "gone.txt"), "bye\n");
  writeFileSync(join(repo, "old-name.txt"), "a file that moves\nwith two lines\n");
  writeFileSync(join(repo, "logo.bin"), Buffer.from([0, 1, 2, 3]));
  writeFileSync(join(repo, ".gitignore"), "ignored/\n");
  git(["add", "."], repo);
  git(["commit", "--quiet", "-m", "first"], repo);
  writeFileSync(join(repo, "keep.txt"), "one\n2\nthree\nfour\n");
  rmSync(join(repo, "gone.txt"));
  renameSync(join(repo, "old-name.txt"), join(repo, "new-name.txt"));
  git(["add", "-A", "old-name.txt", "new-name.txt"], repo);
  writeFileSync(join(repo, "logo.bin"), Buffer.from([0, 9, 9, 9]));
  writeFileSync(join(repo, "staged.txt"), "staged\n");
  git(["add", "staged.txt"], repo);
  writeFileSync(join(repo, "untracked.md"), "# new\n\nnot yet added");
  writeFileSync(join(repo, "huge.txt"), "x".repeat(1024 * 1024 + 1));
  mkdirSync(join(repo, "ignored"));
  writeFileSync(join(repo, "ignored", "secret.txt"), "never listed\n");
});

/** A copy of that repository in the test's folder. */
function repositoryWithChanges(): string {
  changed.copyInto(dir.path);
  return join(dir.path, "repo");
}

async function projectAt(folderPath: string): Promise<{ projectId: string; locationId: string }> {
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath });
  expect(created.status).toBe(201);
  return { projectId: created.body.id, locationId: created.body.locations[0]!.id };
}

test("a location's changes: every kind, with line counts, binaries and oversized files named; each file's diff on demand", async () => {
  const repo = repositoryWithChanges();
  const { projectId, locationId } = await projectAt(repo);
  const base = `/v1/projects/${projectId}/locations/${locationId}/changes`;

  const listed = await t.json<ChangeList>("GET", base);
  expect(listed.status).toBe(200);
  assertMatchesSchema(ChangeList, listed.body);
  expect(listed.body.head).toBe(git(["rev-parse", "HEAD"], repo));
  expect(listed.body.next).toBeNull();
  const byPath = Object.fromEntries(listed.body.files.map((file) => [file.path, file]));
  expect(Object.keys(byPath)).toEqual(["gone.txt", "huge.txt", "keep.txt", "logo.bin", "new-name.txt", "staged.txt", "untracked.md"]);
  expect(byPath["keep.txt"]).toMatchObject({ status: "modified", added: 2, removed: 1, binary: false });
  expect(byPath["gone.txt"]).toMatchObject({ status: "deleted", added: 0, removed: 1 });
  expect(byPath["new-name.txt"]).toMatchObject({ status: "renamed", oldPath: "old-name.txt" });
  expect(byPath["staged.txt"]).toMatchObject({ status: "added", added: 1, removed: 0 });
  expect(byPath["logo.bin"]).toMatchObject({ status: "modified", binary: true, added: null, removed: null });
  expect(byPath["untracked.md"]).toMatchObject({ status: "untracked", added: 3, removed: 0 });
  expect(byPath["huge.txt"]).toMatchObject({ status: "untracked", added: null });

  const diff = async (path: string) => {
    const answer = await t.json<FileDiff>("GET", `${base}/diff?path=${encodeURIComponent(path)}`);
    expect(answer.status).toBe(200);
    assertMatchesSchema(FileDiff, answer.body);
    return answer.body;
  };
  const keep = await diff("keep.txt");
  expect(keep.diff).toContain("-two\n+2\n");
  expect(keep.diff).toContain("+four\n");
  expect((await diff("untracked.md")).diff).toContain("+# new");
  expect((await diff("new-name.txt")).diff).toContain("rename from old-name.txt");
  expect(await diff("logo.bin")).toMatchObject({ binary: true, diff: null });
  expect(await diff("huge.txt")).toMatchObject({ tooLarge: true, diff: null });

  // Paths the list does not name, or that leave the repository, change nothing and say why.
  expect((await t.json("GET", `${base}/diff?path=keep.txt.orig`)).status).toBe(404);
  for (const path of ["../outside.txt", "/etc/passwd", "ignored/../../x"]) {
    const refused = await t.json<{ error: string }>("GET", `${base}/diff?path=${encodeURIComponent(path)}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("not a path inside the repository");
  }
  expect((await t.json("GET", `${base}/diff?path=ignored/secret.txt`)).status).toBe(404);
});

test("how much of each change is staged, and every untracked file: spaces, nested folders, a file taken out of the index but kept", async () => {
  const repo = repositoryWithChanges();
  git(["add", "keep.txt"], repo);
  writeFileSync(join(repo, "keep.txt"), "one\n2\nthree\nfour\nfive\n");
  mkdirSync(join(repo, "deep", "er"), { recursive: true });
  writeFileSync(join(repo, "deep", "er", "a name with spaces.txt"), "x\n");
  git(["rm", "--quiet", "--cached", "logo.bin"], repo);
  const { projectId, locationId } = await projectAt(repo);
  const base = `/v1/projects/${projectId}/locations/${locationId}/changes`;

  const listed = await t.json<ChangeList>("GET", base);
  expect(listed.status).toBe(200);
  assertMatchesSchema(ChangeList, listed.body);
  expect(listed.body.files.map((file) => [file.path, file.status, file.staged])).toEqual([
    ["deep/er/a name with spaces.txt", "untracked", "none"],
    ["gone.txt", "deleted", "none"],
    ["huge.txt", "untracked", "none"],
    ["keep.txt", "modified", "partly"],
    // Out of the index, still in the working tree: a staged deletion, and a file git does not track.
    ["logo.bin", "deleted", "all"],
    ["logo.bin", "untracked", "none"],
    ["new-name.txt", "renamed", "all"],
    ["staged.txt", "added", "all"],
    ["untracked.md", "untracked", "none"],
  ]);
  const keep = await t.json<FileDiff>("GET", `${base}/diff?path=keep.txt`);
  // Its one hunk is only partly in the index, so it is not named among the staged ones.
  expect(keep.body).toMatchObject({ staged: "partly", stagedHunks: [] });
  // A diff asks git status about its own path alone.
  for (const [path, staged] of [
    ["deep/er/a name with spaces.txt", "none"],
    ["new-name.txt", "all"],
    ["logo.bin", "all"],
  ] as const) {
    const answer = await t.json<FileDiff>("GET", `${base}/diff?path=${encodeURIComponent(path)}`);
    expect(answer.body).toMatchObject({ path, staged });
  }
  writeFileSync(join(repo, "notes[1].md"), "glob\n");
  writeFileSync(join(repo, "notes1.md"), "plain\n");
  const bracketed = await t.json<FileDiff>("GET", `${base}/diff?path=${encodeURIComponent("notes[1].md")}`);
  expect(bracketed.body).toMatchObject({ status: "untracked", diff: expect.stringContaining("+glob") });
});

test("many changes come a page at a time; a repository without a commit compares against nothing; a plain folder is 409", async () => {
  const fresh = join(dir.path, "fresh");
  mkdirSync(fresh);
  git(["init", "--quiet", fresh]);
  for (let index = 0; index < 25; index++) writeFileSync(join(fresh, `file-${String(index).padStart(2, "0")}.txt`), `line ${index}\n`);
  git(["add", "file-00.txt"], fresh);
  const { projectId, locationId } = await projectAt(fresh);
  const base = `/v1/projects/${projectId}/locations/${locationId}/changes`;

  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: ChangeList } = await t.json<ChangeList>("GET", `${base}?limit=10${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status).toBe(200);
    expect(page.body.head).toBeNull();
    expect(page.body.files.length).toBeLessThanOrEqual(10);
    seen.push(...page.body.files.map((file) => file.path));
    cursor = page.body.next;
  } while (cursor);
  expect(seen).toEqual(Array.from({ length: 25 }, (_, index) => `file-${String(index).padStart(2, "0")}.txt`));
  expect((await t.json<FileDiff>("GET", `${base}/diff?path=file-00.txt`)).body.diff).toContain("+line 0");
  expect((await t.json("GET", `${base}?cursor=not-ours`)).status).toBe(400);

  const plain = join(dir.path, "plain");
  mkdirSync(plain);
  const notRepo = await projectAt(plain);
  const refused = await t.json<{ error: string }>("GET", `/v1/projects/${notRepo.projectId}/locations/${notRepo.locationId}/changes`);
  expect(refused.status).toBe(409);
  expect(refused.body.error).toBe(`the folder ${plain} is not a git repository`);
  expect((await t.json("GET", `/v1/projects/${projectId}/locations/loc_unknown/changes`)).status).toBe(404);
  expect((await t.json("GET", "/v1/sessions/ses_unknown/changes")).status).toBe(404);
});

test("a session's changes are those of the folder its agent works in", async () => {
  const repo = repositoryWithChanges();
  const { projectId } = await projectAt(repo);
  const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo" });
  expect(session.status).toBe(201);
  const listed = await t.json<ChangeList>("GET", `/v1/sessions/${session.body.id}/changes?limit=2`);
  expect(listed.status).toBe(200);
  assertMatchesSchema(ChangeList, listed.body);
  expect(listed.body.files.map((file) => file.path)).toEqual(["gone.txt", "huge.txt"]);
  expect(listed.body.next).not.toBeNull();
  const diff = await t.json<FileDiff>("GET", `/v1/sessions/${session.body.id}/changes/diff?path=gone.txt`);
  expect(diff.body.diff).toContain("-bye");
});

test("a worktree made for a session: its own changes, apart from the project's folder", async () => {
  const { work } = makeBareRepo(dir.path);
  const { projectId } = await projectAt(work);
  const session = await t.json<{ id: string; cwd: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo", runLocation: "worktree" });
  expect(session.status).toBe(201);
  const [worktree] = (await t.json<Array<{ id: string; path: string }>>("GET", `/v1/projects/${projectId}/worktrees`)).body;
  expect(worktree!.path).toBe(session.body.cwd);
  writeFileSync(join(worktree!.path, "README.md"), "# changed in the worktree\n");

  const listed = await t.json<ChangeList>("GET", `/v1/projects/${projectId}/worktrees/${worktree!.id}/changes`);
  expect(listed.status).toBe(200);
  assertMatchesSchema(ChangeList, listed.body);
  expect(listed.body.files).toEqual([{ path: "README.md", oldPath: null, status: "modified", added: 1, removed: 1, binary: false, staged: "none" }]);
  expect(listed.body.branch).toStartWith("atrium/");
  const diff = await t.json<FileDiff>("GET", `/v1/projects/${projectId}/worktrees/${worktree!.id}/changes/diff?path=README.md`);
  expect(diff.body.diff).toContain("+# changed in the worktree");
  // The project's own folder is untouched.
  const home = (await t.json<Project>("GET", `/v1/projects/${projectId}`)).body.locations[0]!;
  expect((await t.json<ChangeList>("GET", `/v1/projects/${projectId}/locations/${home.id}/changes`)).body.files).toEqual([]);
  expect((await t.json("GET", `/v1/projects/${projectId}/worktrees/wt_unknown/changes`)).status).toBe(404);
});

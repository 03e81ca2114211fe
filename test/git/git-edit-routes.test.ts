/**
 * Staging, unstaging and discarding from a client (issue 39): whole files and hunks named as the changes
 * diff names them, on real repositories; a discard keeps what it throws away and its undo brings it back.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChangeList, FileDiff } from "../../src/schemas/changes.ts";
import { Discard, GitEvents } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { folderTemplate, git } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-git-edits-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  committed.remove();
  await t.stop();
});

const LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
const text = (lines: string[]) => `${lines.join("\n")}\n`;

/** A committed repository where `two-hunks.txt` changed at its start and at its end, plus other kinds of change. */
const committed = folderTemplate((folder) => {
  const repo = join(folder, "repo");
  mkdirSync(repo);
  git(["init", "--quiet", repo]);
  writeFileSync(join(repo, "two-hunks.txt"), text(LINES));
  writeFileSync(join(repo, "gone.txt"), "bye\n");
  writeFileSync(join(repo, "mixed.txt"), "one\ntwo\n");
  git(["add", "."], repo);
  git(["-c", "user.name=T", "-c", "user.email=t@t.invalid", "commit", "--quiet", "-m", "first"], repo);
  writeFileSync(join(repo, "two-hunks.txt"), text(["LINE 1", ...LINES.slice(1, 29), "LINE 30"]));
  git(["rm", "--quiet", "gone.txt"], repo);
  writeFileSync(join(repo, "mixed.txt"), "one\ntwo\nstaged\n");
  git(["add", "mixed.txt"], repo);
  writeFileSync(join(repo, "mixed.txt"), "one\ntwo\nstaged\nnot staged\n");
  writeFileSync(join(repo, "new file*.md"), "# new\n");
});

/** A copy of that repository in the test's folder. */
function repository(): string {
  committed.copyInto(dir.path);
  return join(dir.path, "repo");
}

async function locationBase(folderPath: string): Promise<string> {
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath });
  expect(created.status).toBe(201);
  return `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}`;
}

async function hunkHeaders(base: string, path: string): Promise<string[]> {
  const diff = await t.json<FileDiff>("GET", `${base}/changes/diff?path=${encodeURIComponent(path)}`);
  return (diff.body.diff ?? "").split("\n").filter((line) => line.startsWith("@@ "));
}

/** Index and working tree as git shows them, to compare before and after. */
const state = (repo: string) => ({
  staged: git(["diff", "--cached", "--no-color"], repo),
  unstaged: git(["diff", "--no-color"], repo),
  untracked: git(["ls-files", "--others", "--exclude-standard"], repo),
});

async function post<T>(path: string, body: unknown, status = 200): Promise<T> {
  const answer = await t.json<T>("POST", path, body);
  expect({ path, status: answer.status, body: answer.body }).toMatchObject({ status });
  return answer.body;
}

test("stage and unstage whole files and single hunks, as the changes diff names them", async () => {
  const repo = repository();
  const base = await locationBase(repo);
  const headers = await hunkHeaders(base, "two-hunks.txt");
  expect(headers).toHaveLength(2);

  const staged = await post<ChangeList>(`${base}/git/stage`, { hunks: [{ path: "two-hunks.txt", header: headers[1]! }] });
  assertMatchesSchema(ChangeList, staged);
  expect(staged.files.map((file) => file.path)).toContain("two-hunks.txt");
  expect(git(["diff", "--cached", "--", "two-hunks.txt"], repo)).toContain("+LINE 30");
  expect(git(["diff", "--cached", "--", "two-hunks.txt"], repo)).not.toContain("+LINE 1\n");
  expect(git(["diff", "--", "two-hunks.txt"], repo)).toContain("+LINE 1");
  // What is staged shows in the list (a file at a time) and in its diff (a hunk at a time).
  const stagedOf = (list: ChangeList) => Object.fromEntries(list.files.map((file) => [file.path, file.staged]));
  expect(stagedOf(staged)).toEqual({ "gone.txt": "all", "mixed.txt": "partly", "new file*.md": "none", "two-hunks.txt": "partly" });
  const diff = await t.json<FileDiff>("GET", `${base}/changes/diff?path=two-hunks.txt`);
  assertMatchesSchema(FileDiff, diff.body);
  expect(diff.body.stagedHunks).toEqual([headers[1]!.replace(/ @@.*$/, " @@")]);
  // Staged already: asked again, nothing changes.
  const before = state(repo);
  await post(`${base}/git/stage`, { hunks: [{ path: "two-hunks.txt", header: headers[1]! }] });
  expect(state(repo)).toEqual(before);

  await post(`${base}/git/unstage`, { hunks: [{ path: "two-hunks.txt", header: headers[1]! }] });
  expect(git(["diff", "--cached", "--", "two-hunks.txt"], repo)).toBe("");

  await post(`${base}/git/stage`, { paths: ["new file*.md", "two-hunks.txt"] });
  expect(git(["diff", "--cached", "--name-status"], repo).split("\n")).toEqual(["D\tgone.txt", "M\tmixed.txt", "A\tnew file*.md", "M\ttwo-hunks.txt"]);
  await post(`${base}/git/unstage`, { paths: ["gone.txt", "mixed.txt", "new file*.md"] });
  expect(git(["diff", "--cached", "--name-status"], repo)).toBe("M\ttwo-hunks.txt");
  expect(existsSync(join(repo, "new file*.md"))).toBe(true);
  expect(readFileSync(join(repo, "mixed.txt"), "utf8")).toBe("one\ntwo\nstaged\nnot staged\n");
});

test("what a stage or discard cannot do is refused with its reason, and nothing changes", async () => {
  const repo = repository();
  const base = await locationBase(repo);
  const before = state(repo);
  const refusals: [string, unknown, number, string][] = [
    ["stage", {}, 400, "name at least one file or hunk"],
    ["stage", { paths: ["../outside.txt"] }, 400, "not a path inside the repository"],
    ["stage", { paths: ["untouched.txt"] }, 404, "untouched.txt has no changes"],
    ["stage", { hunks: [{ path: "two-hunks.txt", header: "@@ -7,3 +7,3 @@" }] }, 404, "has no hunk @@ -7,3 +7,3 @@"],
    ["unstage", { hunks: [{ path: "new file*.md", header: "@@ -0,0 +1 @@" }] }, 400, "name hunks only of a modified file"],
    ["discard", { paths: ["two-hunks.txt", "nowhere.txt"] }, 404, "nowhere.txt has no changes"],
    ["discard", { paths: "two-hunks.txt" }, 400, "paths"],
  ];
  for (const [verb, body, status, error] of refusals) {
    const answer = await post<{ error: string }>(`${base}/git/${verb}`, body, status);
    expect(answer.error).toContain(error);
  }
  expect(state(repo)).toEqual(before);
  expect(git(["for-each-ref", "refs/atrium"], repo)).toBe("");

  // A hunk the index cannot take (it holds another change there): 409 in git's words, and the file named beside it is not staged either.
  const headers = await hunkHeaders(base, "two-hunks.txt");
  writeFileSync(join(repo, "two-hunks.txt"), text(["STAGED 1", ...LINES.slice(1)]));
  git(["add", "two-hunks.txt"], repo);
  writeFileSync(join(repo, "two-hunks.txt"), text(["LINE 1", ...LINES.slice(1, 29), "LINE 30"]));
  const clash = state(repo);
  const unfit = await post<{ error: string }>(`${base}/git/stage`, { paths: ["new file*.md"], hunks: [{ path: "two-hunks.txt", header: headers[0]! }] }, 409);
  expect(unfit.error).toContain("git apply failed");
  expect(state(repo)).toEqual(clash);

  // Another process's index.lock: a 409 that says so, and the lock left to its owner.
  writeFileSync(join(repo, ".git", "index.lock"), "");
  const locked = await post<{ error: string }>(`${base}/git/stage`, { paths: ["gone.txt"] }, 409);
  expect(locked.error).toContain("another git process is using the repository");
  expect(existsSync(join(repo, ".git", "index.lock"))).toBe(true);

  const plain = join(dir.path, "plain");
  mkdirSync(plain);
  const notRepo = await post<{ error: string }>(`${await locationBase(plain)}/git/stage`, { paths: ["x"] }, 409);
  expect(notRepo.error).toBe(`the folder ${plain} is not a git repository`);
  expect((await t.json("POST", `${base.replace(/loc_\w+$/, "loc_unknown")}/git/stage`, { paths: ["x"] })).status).toBe(404);
});

test("a discard keeps files, hunks, staged parts and untracked files, and its undo brings them all back", async () => {
  const repo = repository();
  const base = await locationBase(repo);
  const before = state(repo);
  const headers = await hunkHeaders(base, "two-hunks.txt");

  const discarded = await post<Discard>(`${base}/git/discard`, {
    paths: ["mixed.txt", "new file*.md", "gone.txt"],
    hunks: [{ path: "two-hunks.txt", header: headers[0]! }],
  });
  assertMatchesSchema(Discard, discarded);
  expect(discarded.paths).toEqual(["gone.txt", "mixed.txt", "new file*.md", "two-hunks.txt"]);
  expect(git(["rev-parse", "--verify", discarded.ref], repo)).toMatch(/^[0-9a-f]{40}$/);
  expect(readFileSync(join(repo, "mixed.txt"), "utf8")).toBe("one\ntwo\n");
  expect(readFileSync(join(repo, "gone.txt"), "utf8")).toBe("bye\n");
  expect(existsSync(join(repo, "new file*.md"))).toBe(false);
  expect(readFileSync(join(repo, "two-hunks.txt"), "utf8")).toBe(text([...LINES.slice(0, 29), "LINE 30"]));
  expect(git(["status", "--porcelain"], repo)).toBe("M two-hunks.txt");

  const undone = await post<ChangeList>(`${base}/git/discard/undo`, { id: discarded.id });
  assertMatchesSchema(ChangeList, undone);
  expect(state(repo)).toEqual(before);
  expect(git(["for-each-ref", "refs/atrium"], repo)).toBe("");
  expect((await post<{ error: string }>(`${base}/git/discard/undo`, { id: discarded.id }, 404)).error).toContain("has no discard");
  expect((await t.json("POST", `${base}/git/discard/undo`, { id: "dsc_../../HEAD" })).status).toBe(404);
});

test("a staged rename is discarded whole, both its paths, and its undo stages it again", async () => {
  const repo = repository();
  git(["mv", "two-hunks.txt", "renamed.txt"], repo);
  const base = await locationBase(repo);
  const before = state(repo);
  const discarded = await post<Discard>(`${base}/git/discard`, { paths: ["renamed.txt"] });
  expect(discarded.paths).toEqual(["renamed.txt", "two-hunks.txt"]);
  expect(readFileSync(join(repo, "two-hunks.txt"), "utf8")).toBe(text(LINES));
  expect(existsSync(join(repo, "renamed.txt"))).toBe(false);
  await post(`${base}/git/discard/undo`, { id: discarded.id });
  expect(state(repo)).toEqual(before);
});

test("an undo that would overwrite a file changed since the discard is refused, and nothing changes", async () => {
  const repo = repository();
  const base = await locationBase(repo);
  const discarded = await post<Discard>(`${base}/git/discard`, { paths: ["mixed.txt"] });
  writeFileSync(join(repo, "mixed.txt"), "edited after\n");
  const now = state(repo);
  const refused = await post<{ error: string }>(`${base}/git/discard/undo`, { id: discarded.id }, 409);
  expect(refused.error).toBe("changed since the discard, so not overwritten: mixed.txt");
  expect(state(repo)).toEqual(now);
  expect(git(["rev-parse", "--verify", discarded.ref], repo)).toMatch(/^[0-9a-f]{40}$/);
});

test("a repository without a commit stages and unstages; a session's routes act on its folder", async () => {
  const fresh = join(dir.path, "fresh");
  mkdirSync(fresh);
  git(["init", "--quiet", fresh]);
  writeFileSync(join(fresh, "a.txt"), "a\n");
  const base = await locationBase(fresh);
  await post(`${base}/git/stage`, { paths: ["a.txt"] });
  expect(git(["ls-files"], fresh)).toBe("a.txt");
  await post(`${base}/git/unstage`, { paths: ["a.txt"] });
  expect(git(["ls-files"], fresh)).toBe("");
  const discarded = await post<Discard>(`${base}/git/discard`, { paths: ["a.txt"] });
  expect(existsSync(join(fresh, "a.txt"))).toBe(false);
  await post(`${base}/git/discard/undo`, { id: discarded.id });
  expect(readFileSync(join(fresh, "a.txt"), "utf8")).toBe("a\n");

  const repo = repository();
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: repo });
  const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: created.body.id, harnessId: "echo" });
  expect(session.status).toBe(201);
  await post(`/v1/sessions/${session.body.id}/git/stage`, { paths: ["two-hunks.txt"] });
  expect(git(["diff", "--cached", "--name-only"], repo)).toContain("two-hunks.txt");
  expect((await t.json("POST", "/v1/sessions/ses_unknown/git/stage", { paths: ["x"] })).status).toBe(404);
  expect((await t.json("POST", `/v1/projects/${created.body.id}/worktrees/wt_unknown/git/discard`, { paths: ["x"] })).status).toBe(404);
});

test("each operation is followed by a git.changed event with the repository's state after it; a refused one by none", async () => {
  const repo = repository();
  const base = await locationBase(repo);
  const after = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
  await post(`${base}/git/stage`, { paths: ["two-hunks.txt"] });
  await post(`${base}/git/unstage`, { paths: ["nowhere.txt"] }, 404);
  const discarded = await post<Discard>(`${base}/git/discard`, { paths: ["new file*.md"] });
  await post(`${base}/git/discard/undo`, { id: discarded.id });
  const events = (await replayedEvents(t, after)).filter((event) => event.kind === "git.changed");
  const root = git(["rev-parse", "--show-toplevel"], repo);
  expect(events.map((event) => [event.subjectId, event.payload])).toEqual([
    [
      root,
      {
        repositoryRoot: root,
        operation: "stage",
        branch: git(["symbolic-ref", "--short", "HEAD"], repo),
        head: git(["rev-parse", "HEAD"], repo),
        changeCount: 4,
      },
    ],
    [root, expect.objectContaining({ operation: "discard", changeCount: 3 })],
    [root, expect.objectContaining({ operation: "discard.undo", changeCount: 4 })],
  ]);
  for (const event of events) assertMatchesSchema(GitEvents["git.changed"], event.payload);
});

/**
 * Landing a session's worktree branch on its base branch (issue 39): by merge, squash or rebase, worked
 * out apart from every working tree; a conflict leaves the base branch untouched and names the files.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MergeResult } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { folderTemplate, git, makeBareRepo } from "../helpers/git-fixtures.ts";
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
  dir = makeTempDir("atrium-worktree-merge-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  cloned.remove();
  await t.stop();
});

const commitIn = (folder: string, file: string, content: string, message: string) => {
  writeFileSync(join(folder, file), content);
  git(["add", file], folder);
  git(["commit", "--quiet", "-m", message], folder);
};

/** A clone with `main` checked out, the repository's own identity for the merge commits. */
const cloned = folderTemplate((folder) => {
  const { work } = makeBareRepo(folder);
  git(["config", "user.name", "Phone User"], work);
  git(["config", "user.email", "phone@atrium.invalid"], work);
});

/** A project on a copy of that clone in the test's folder. */
async function project(): Promise<{ work: string; projectId: string }> {
  cloned.copyInto(dir.path);
  const work = join(dir.path, "repo-work");
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: work });
  return { work, projectId: created.body.id };
}

/** A session in a worktree of its own, with one commit on its branch writing `file`. */
async function sessionWithCommit(projectId: string, file: string, content: string): Promise<{ id: string; cwd: string }> {
  const session = await t.json<{ id: string; cwd: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo", runLocation: "worktree" });
  expect(session.status).toBe(201);
  commitIn(session.body.cwd, file, content, `session writes ${file}`);
  return session.body;
}

const land = (sessionId: string, body: unknown) => t.json<MergeResult & { error: string }>("POST", `/v1/sessions/${sessionId}/worktree/merge`, body);

test("merge, squash and rebase each land the session's branch on main, fast-forwarding the folder that has it checked out", async () => {
  const { work, projectId } = await project();
  const merging = await sessionWithCommit(projectId, "merged.txt", "merged\n");
  const after = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
  const merged = await land(merging.id, { strategy: "merge" });
  expect(merged.status).toBe(200);
  assertMatchesSchema(MergeResult, merged.body);
  expect(merged.body).toMatchObject({ into: "main", strategy: "merge", head: git(["rev-parse", "main"], work), worktreeRemoved: false });
  expect(git(["rev-list", "--parents", "-n", "1", "main"], work).split(" ")).toHaveLength(3);
  expect(readFileSync(join(work, "merged.txt"), "utf8")).toBe("merged\n");
  expect(git(["status", "--porcelain"], work)).toBe("");
  const changed = (await replayedEvents(t, after)).filter((event) => event.kind === "git.changed");
  expect(changed.map((event) => event.payload)).toEqual([
    { repositoryRoot: git(["rev-parse", "--show-toplevel"], work), operation: "merge", branch: "main", head: merged.body.head, changeCount: 0 },
  ]);

  const squashing = await sessionWithCommit(projectId, "squashed.txt", "squashed\n");
  commitIn(squashing.cwd, "squashed-2.txt", "two\n", "second commit");
  const squashed = await land(squashing.id, { strategy: "squash", message: "One commit from the phone", removeWorktree: true });
  expect(squashed.status).toBe(200);
  expect(squashed.body.worktreeRemoved).toBe(true);
  expect(git(["log", "-1", "--format=%s%n%P", "main"], work).split("\n")).toEqual(["One commit from the phone", merged.body.head]);
  expect(existsSync(join(work, "squashed-2.txt"))).toBe(true);
  expect(existsSync(squashing.cwd)).toBe(false);
  const worktrees = (await t.json<Array<{ sessionId: string }>>("GET", `/v1/projects/${projectId}/worktrees`)).body;
  expect(worktrees.map((worktree) => worktree.sessionId)).not.toContain(squashing.id);

  const rebasing = await sessionWithCommit(projectId, "rebased.txt", "rebased\n");
  commitIn(work, "meanwhile.txt", "on main meanwhile\n", "main moves on");
  const before = git(["rev-parse", "main"], work);
  const rebased = await land(rebasing.id, { strategy: "rebase" });
  expect(rebased.status).toBe(200);
  expect(git(["log", "-1", "--format=%s%n%P", "main"], work).split("\n")).toEqual(["session writes rebased.txt", before]);

  // A branch no folder has checked out: its ref moves, and main stays where it was.
  git(["branch", "release", "main~1"], work);
  const releasing = await sessionWithCommit(projectId, "release.txt", "release\n");
  const released = await land(releasing.id, { strategy: "merge", into: "release" });
  expect(released.status).toBe(200);
  expect(git(["rev-parse", "release"], work)).toBe(released.body.head);
  expect(git(["rev-parse", "main"], work)).toBe(rebased.body.head);
});

test("a conflict leaves main untouched and names the files; a session without a worktree, or changes in the way, are 409", async () => {
  const { work, projectId } = await project();
  const session = await sessionWithCommit(projectId, "README.md", "# the session's\n");
  commitIn(work, "README.md", "# main's\n", "main edits the readme");
  const before = git(["rev-parse", "main"], work);
  for (const strategy of ["merge", "squash", "rebase"]) {
    const refused = await land(session.id, { strategy });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain("conflicts in: README.md");
    expect(git(["rev-parse", "main"], work)).toBe(before);
    expect(git(["status", "--porcelain"], work)).toBe("");
  }
  expect(git(["worktree", "list", "--porcelain"], work).match(/^worktree /gm)).toHaveLength(2);

  // The worktree's own git routes act in it: its log has the session's commit on top.
  const worktree = (await t.json<Array<{ id: string; sessionId: string }>>("GET", `/v1/projects/${projectId}/worktrees`)).body.find(
    (candidate) => candidate.sessionId === session.id,
  )!;
  const log = await t.json<{ commits: Array<{ subject: string }> }>("GET", `/v1/projects/${projectId}/worktrees/${worktree.id}/git/log?limit=1`);
  expect(log.body.commits.map((commit) => commit.subject)).toEqual(["session writes README.md"]);

  writeFileSync(join(session.cwd, "loose.txt"), "not committed\n");
  const dirty = await land(session.id, { strategy: "merge", removeWorktree: true });
  expect(dirty.status).toBe(409);
  expect(dirty.body.error).toContain("has uncommitted changes");

  const inFolder = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo", runLocation: "projectDirectory" });
  expect((await land(inFolder.body.id, { strategy: "merge" })).status).toBe(409);
  expect((await land(session.id, { strategy: "merge", into: "nowhere" })).status).toBe(404);
  expect((await land("ses_unknown", { strategy: "merge" })).status).toBe(404);
  expect((await land(session.id, { strategy: "octopus" })).status).toBe(400);
});

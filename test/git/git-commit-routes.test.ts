/**
 * Committing from a client (issue 39): with the repository's own identity and hooks, whose output comes
 * back; a failing hook, nothing staged, a detached HEAD or another process's lock are 409 and change nothing.
 * "Write the message": a message made from the staged files.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Commit, CommitMessage } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { folderTemplate, git } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-git-commit-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  staged.remove();
  await t.stop();
});

/** A repository with one commit, its own identity (as the machine's configuration would give), and `a.txt` staged. */
const staged = folderTemplate((folder) => {
  const repo = join(folder, "repo");
  mkdirSync(repo);
  git(["init", "--quiet", repo]);
  git(["symbolic-ref", "HEAD", "refs/heads/main"], repo);
  git(["config", "user.name", "Phone User"], repo);
  git(["config", "user.email", "phone@atrium.invalid"], repo);
  writeFileSync(join(repo, "a.txt"), "a\n");
  git(["add", "."], repo);
  git(["commit", "--quiet", "-m", "first"], repo);
  writeFileSync(join(repo, "a.txt"), "a\nb\n");
  git(["add", "a.txt"], repo);
});

/** A copy of that repository in the test's folder, made a project. */
async function repositoryWithStagedChange(): Promise<{ repo: string; base: string }> {
  staged.copyInto(dir.path);
  const repo = join(dir.path, "repo");
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: repo });
  return { repo, base: `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}` };
}

function hook(repo: string, name: string, script: string): void {
  const file = join(repo, ".git", "hooks", name);
  writeFileSync(file, `#!/bin/sh\n${script}\n`);
  chmodSync(file, 0o755);
}

test("a commit of what is staged: the new sha, the hooks' output, the repository's identity; an amend replaces it", async () => {
  const { repo, base } = await repositoryWithStagedChange();
  hook(repo, "pre-commit", 'echo "pre-commit looked at it"');
  const made = await t.json<Commit>("POST", `${base}/git/commit`, { message: "Add b\n\nFrom the phone." });
  expect(made.status).toBe(201);
  assertMatchesSchema(Commit, made.body);
  expect(made.body.sha).toBe(git(["rev-parse", "HEAD"], repo));
  expect(made.body.branch).toBe("main");
  expect(made.body.output).toContain("pre-commit looked at it");
  expect(git(["log", "-1", "--format=%an <%ae>%n%B"], repo)).toBe("Phone User <phone@atrium.invalid>\nAdd b\n\nFrom the phone.");
  expect(git(["status", "--porcelain"], repo)).toBe("");

  const amended = await t.json<Commit>("POST", `${base}/git/commit`, { message: "Add b, amended", amend: true });
  expect(amended.status).toBe(201);
  expect(git(["log", "--format=%s"], repo).split("\n")).toEqual(["Add b, amended", "first"]);
});

test("a failing hook is 409 with its output and no commit, unless noVerify; nothing staged is 409", async () => {
  const { repo, base } = await repositoryWithStagedChange();
  const head = git(["rev-parse", "HEAD"], repo);
  hook(repo, "pre-commit", 'echo "lint: a.txt has a problem" >&2\nexit 1');
  const refused = await t.json<{ error: string }>("POST", `${base}/git/commit`, { message: "Add b" });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toContain("lint: a.txt has a problem");
  expect(git(["rev-parse", "HEAD"], repo)).toBe(head);
  expect(git(["diff", "--cached", "--name-only"], repo)).toBe("a.txt");

  expect((await t.json<Commit>("POST", `${base}/git/commit`, { message: "Add b", noVerify: true })).status).toBe(201);
  const empty = await t.json<{ error: string }>("POST", `${base}/git/commit`, { message: "Nothing", noVerify: true });
  expect(empty.status).toBe(409);
  expect(empty.body.error).toContain("nothing to commit");
  expect((await t.json("POST", `${base}/git/commit`, { message: "" })).status).toBe(400);
});

test("a detached HEAD is refused unless asked; another process's index.lock is a clear 409", async () => {
  const { repo, base } = await repositoryWithStagedChange();
  git(["checkout", "--quiet", "--detach"], repo);
  const detached = await t.json<{ error: string }>("POST", `${base}/git/commit`, { message: "Loose" });
  expect(detached.status).toBe(409);
  expect(detached.body.error).toContain("HEAD is detached");
  const allowed = await t.json<Commit>("POST", `${base}/git/commit`, { message: "Loose", allowDetached: true });
  expect(allowed.status).toBe(201);
  expect(allowed.body.branch).toBeNull();

  writeFileSync(join(repo, "a.txt"), "c\n");
  git(["add", "a.txt"], repo);
  writeFileSync(join(repo, ".git", "index.lock"), "");
  const locked = await t.json<{ error: string }>("POST", `${base}/git/commit`, { message: "Locked", allowDetached: true });
  expect(locked.status).toBe(409);
  expect(locked.body.error).toContain("another git process is using the repository");
  expect(git(["rev-parse", "HEAD"], repo)).toBe(allowed.body.sha);
});

test("write the message: a first line naming each kind of staged change, a line per file with its status and counts; nothing staged is 409", async () => {
  const { repo, base } = await repositoryWithStagedChange();
  const write = () => t.json<CommitMessage>("POST", `${base}/git/commit-message`);
  const one = await write();
  expect(one.status).toBe(200);
  assertMatchesSchema(CommitMessage, one.body);
  expect(one.body).toEqual({ message: "Update a.txt\n\n- modified a.txt (+1 -0)\n", source: "summary" });

  // Adds, a modification, a deletion, a rename (found from a staged delete and add) and a binary file; unstaged work is left out.
  writeFileSync(join(repo, "b.txt"), "b\n");
  writeFileSync(join(repo, "c.txt"), "c\nc\n");
  writeFileSync(join(repo, "l.bin"), Buffer.from([0, 1, 2, 0, 255]));
  git(["add", "."], repo);
  git(["commit", "--quiet", "-m", "second"], repo);
  writeFileSync(join(repo, "a.txt"), "a\nb\nc\n");
  writeFileSync(join(repo, "n.txt"), "new\n");
  git(["rm", "--quiet", "b.txt"], repo);
  git(["mv", "c.txt", "d.txt"], repo);
  writeFileSync(join(repo, "l.bin"), Buffer.from([0, 3, 0]));
  git(["add", "a.txt", "n.txt", "l.bin"], repo);
  writeFileSync(join(repo, "unstaged.txt"), "not staged\n");
  const status = git(["status", "--porcelain"], repo);
  const many = await write();
  expect(many.body.message).toBe(
    [
      "Add n.txt; update a.txt and l.bin; rename c.txt to d.txt; remove b.txt",
      "",
      "- modified a.txt (+1 -0)",
      "- deleted b.txt (+0 -1)",
      "- renamed c.txt → d.txt (+0 -0)",
      "- modified l.bin (binary)",
      "- added n.txt (+1 -0)",
      "",
    ].join("\n"),
  );
  expect(git(["status", "--porcelain"], repo)).toBe(status);

  // Past a few files of a kind they are counted, and all of them when the line would be long.
  for (const index of [1, 2, 3, 4, 5]) writeFileSync(join(repo, `more-${index}.txt`), `${index}\n`);
  git(["add", "."], repo);
  expect((await write()).body.message.split("\n")[0]).toBe("Add 7 files; update a.txt and l.bin; rename c.txt to d.txt; remove b.txt");
  git(["mv", "d.txt", "a-name-long-enough-to-push-the-first-line-past-72.txt"], repo);
  expect((await write()).body.message.split("\n")[0]).toBe("Add 7 files; update 2 files; rename 1 file; remove 1 file");

  git(["commit", "--quiet", "-m", "third"], repo);
  const nothing = await t.json<{ error: string }>("POST", `${base}/git/commit-message`);
  expect(nothing.status).toBe(409);
  expect(nothing.body.error).toContain("nothing is staged");
});

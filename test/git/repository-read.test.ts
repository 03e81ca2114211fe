/**
 * What `WorkingTreeChanges.repository` reads of a folder (its root, HEAD and branch), in one git process
 * where it can: the same answers `git rev-parse` and `git symbolic-ref --short` give one at a time.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { WorkingTreeChanges } from "../../src/git/working-tree-changes.ts";
import { git } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const changes = new WorkingTreeChanges();
let dir: ReturnType<typeof makeTempDir>;
let repo: string;
/** The repository's root as git names it (the temp dir with any symbolic link resolved). */
let root: string;
beforeAll(() => {
  dir = makeTempDir("atrium-repository-read-");
  repo = join(dir.path, "repo");
  mkdirSync(join(repo, "sub"), { recursive: true });
  git(["init", "--quiet", repo]);
  git(["symbolic-ref", "HEAD", "refs/heads/main"], repo);
  root = git(["rev-parse", "--show-toplevel"], repo);
});
afterAll(() => dir.remove());

test("before the first commit, on a branch, on a branch a tag shares its name with, detached, and outside git", async () => {
  expect(await changes.repository(join(repo, "sub"))).toEqual({ root, head: null, branch: "main", base: EMPTY_TREE });

  git(["commit", "--quiet", "--allow-empty", "-m", "first"], repo);
  const head = git(["rev-parse", "HEAD"], repo);
  expect(await changes.repository(join(repo, "sub"))).toEqual({ root, head, branch: "main", base: head });

  // As `git symbolic-ref --short` names it: `heads/main`, since `main` alone would name the tag.
  git(["tag", "main"], repo);
  expect((await changes.repository(repo)).branch).toBe(git(["symbolic-ref", "--short", "HEAD"], repo));
  expect((await changes.repository(repo)).branch).toBe("heads/main");
  git(["tag", "-d", "main"], repo);

  git(["checkout", "--quiet", "--detach"], repo);
  expect(await changes.repository(repo)).toEqual({ root, head, branch: null, base: head });

  const plain = join(dir.path, "plain");
  mkdirSync(plain);
  await expect(changes.repository(plain)).rejects.toThrow(`the folder ${plain} is not a git repository`);
  await expect(changes.repository(join(dir.path, "gone"))).rejects.toThrow("does not exist");
});

/**
 * What `WorkingTreeChanges.repository` reads of a folder (its root, HEAD and branch), in one git process
 * where it can: the same answers `git rev-parse` and `git symbolic-ref --short` give one at a time. And
 * an operation queued behind another acts on the repository as the other left it, not as it was asked.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Discards } from "../../src/git/discards.ts";
import { GitChangedNotices } from "../../src/git/git-changed.ts";
import type { Repository } from "../../src/git/repository-info.ts";
import { WorkingTreeChanges } from "../../src/git/working-tree-changes.ts";
import { WorkingTreeEdits } from "../../src/git/working-tree-edits.ts";
import { git } from "../helpers/git-fixtures.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { openTestStore } from "../helpers/test-store.ts";

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

test("before the first commit, on a branch, on a branch a tag shares its name with, on a branch called HEAD, detached, and outside git", async () => {
  expect(await changes.repository(join(repo, "sub"))).toEqual({ root, head: null, branch: "main", base: EMPTY_TREE });

  git(["commit", "--quiet", "--allow-empty", "-m", "first"], repo);
  const head = git(["rev-parse", "HEAD"], repo);
  expect(await changes.repository(join(repo, "sub"))).toEqual({ root, head, branch: "main", base: head });

  // As `git symbolic-ref --short` names it: `heads/main`, since `main` alone would name the tag.
  git(["tag", "main"], repo);
  expect((await changes.repository(repo)).branch).toBe(git(["symbolic-ref", "--short", "HEAD"], repo));
  expect((await changes.repository(repo)).branch).toBe("heads/main");
  git(["tag", "-d", "main"], repo);

  // On a branch called HEAD (made by hand; git would not make it): read in two, and named as symbolic-ref names it.
  git(["update-ref", "refs/heads/HEAD", head], repo);
  git(["symbolic-ref", "HEAD", "refs/heads/HEAD"], repo);
  expect(await changes.repository(repo)).toEqual({ root, head, branch: git(["symbolic-ref", "--short", "HEAD"], repo), base: head });
  git(["symbolic-ref", "HEAD", "refs/heads/main"], repo);
  git(["update-ref", "-d", "refs/heads/HEAD"], repo);

  git(["checkout", "--quiet", "--detach"], repo);
  expect(await changes.repository(repo)).toEqual({ root, head, branch: null, base: head });

  const plain = join(dir.path, "plain");
  mkdirSync(plain);
  await expect(changes.repository(plain)).rejects.toThrow(`the folder ${plain} is not a git repository`);
  await expect(changes.repository(join(dir.path, "gone"))).rejects.toThrow("does not exist");
});

/** The real reads, each one said to `onRead` once it is done. */
class ObservedChanges extends WorkingTreeChanges {
  onRead?: () => void;
  override async repository(folder: string): Promise<Repository> {
    const read = await super.repository(folder);
    this.onRead?.();
    return read;
  }
}

test("an amend queued behind the first commit, and asked before it, amends that commit", async () => {
  const fresh = join(dir.path, "fresh");
  mkdirSync(fresh);
  git(["init", "--quiet", fresh]);
  git(["config", "user.name", "Phone User"], fresh);
  git(["config", "user.email", "phone@atrium.invalid"], fresh);
  writeFileSync(join(fresh, "a.txt"), "a\n");
  git(["add", "a.txt"], fresh);
  // The first commit's hook says it holds, then waits until the test releases it; the amend's passes.
  const [held, release] = [join(dir.path, "held"), join(dir.path, "release")];
  expect(Bun.spawnSync(["mkfifo", release]).exitCode).toBe(0);
  const hook = join(fresh, ".git", "hooks", "pre-commit");
  writeFileSync(hook, `#!/bin/sh\nif [ ! -e '${held}' ]; then : > '${held}'; read line < '${release}'; fi\n`);
  chmodSync(hook, 0o755);

  const store = openTestStore();
  try {
    const changes = new ObservedChanges();
    const clock = new ManualClock();
    const edits = new WorkingTreeEdits(changes, new Discards(clock), clock, new GitChangedNotices(store.store, store.log, clock));
    const first = edits.commit(fresh, { message: "first" });
    await until(async () => existsSync(held), Boolean);
    // Asked while the first commit holds: the repository has no commit yet, so an amend read then would be refused.
    const readBeforeFirst = new Promise<void>((resolve) => (changes.onRead = resolve));
    const amend = edits.commit(fresh, { message: "amended", amend: true });
    await readBeforeFirst;
    changes.onRead = undefined;
    writeFileSync(release, "go\n");
    expect((await first).branch).toBe(git(["symbolic-ref", "--short", "HEAD"], fresh));
    expect((await amend).sha).toBe(git(["rev-parse", "HEAD"], fresh));
    expect(git(["log", "--format=%s"], fresh)).toBe("amended");
  } finally {
    store.close();
  }
});

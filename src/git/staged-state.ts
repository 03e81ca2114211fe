import type { ChangedFile } from "../schemas/changes.ts";
import { runGit } from "./git-runner.ts";
import { LITERAL_PATHS } from "./git-step.ts";
import { hunkKey, patchOfHunks } from "./hunk-patch.ts";
import type { Change } from "./working-tree-changes.ts";

/** A file's hunks looked at for being staged, at most: each is one `git apply --check`. */
const MAX_HUNKS_LOOKED_AT = 100;

const namesOf = (stdout: string) => new Set(stdout.split("\0").filter(Boolean));

/**
 * How much of each change is in the index: `all` (the working tree adds nothing to it), `partly` (it
 * does), `none` (the index is as at the base). What a client shows to say what a commit would take.
 */
export async function stagedStates(root: string, base: string, changes: Change[]): Promise<Map<string, ChangedFile["staged"]>> {
  const states = new Map<string, ChangedFile["staged"]>();
  const tracked = changes.filter((change) => change.status !== "untracked");
  for (const change of changes) states.set(change.path, "none");
  if (tracked.length === 0) return states;
  const paths = tracked.flatMap((change) => (change.oldPath ? [change.oldPath, change.path] : [change.path]));
  const options = { cwd: root, timeoutMs: 30_000, env: LITERAL_PATHS };
  const [inIndex, inWorkingTree] = await Promise.all([
    runGit(["diff", "--cached", "--name-only", "-z", "-M", base, "--", ...paths], options),
    runGit(["diff", "--name-only", "-z", "--", ...paths], options),
  ]);
  if (inIndex.code !== 0) throw new Error(`git diff --cached failed: ${inIndex.stderr.trim()}`);
  if (inWorkingTree.code !== 0) throw new Error(`git diff failed: ${inWorkingTree.stderr.trim()}`);
  const staged = namesOf(inIndex.stdout);
  const unstaged = namesOf(inWorkingTree.stdout);
  for (const change of tracked) if (staged.has(change.path)) states.set(change.path, unstaged.has(change.path) ? "partly" : "all");
  return states;
}

/** The `@@ -a,b +c,d @@` names of the hunks of one file's diff against the base that are wholly in the index. */
export async function stagedHunks(root: string, path: string, diff: string): Promise<string[]> {
  const headers = diff
    .split("\n")
    .filter((line) => line.startsWith("@@ "))
    .slice(0, MAX_HUNKS_LOOKED_AT);
  const staged: string[] = [];
  for (const header of headers) {
    // A hunk is in the index when taking it back out of the index would apply.
    const check = await runGit(["apply", "--cached", "--check", "-R"], { cwd: root, input: patchOfHunks(diff, path, [header]), env: LITERAL_PATHS });
    if (check.code === 0) staged.push(hunkKey(header));
  }
  return staged;
}

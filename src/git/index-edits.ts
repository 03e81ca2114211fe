import type { GitSelection } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { gitStep, LITERAL_PATHS } from "./git-step.ts";
import { pathsOf, resolveSelection, type ResolvedSelection } from "./selection.ts";
import type { RepositoryStatus } from "./working-tree-changes.ts";

/**
 * Stages and unstages whole files and hunks with real git. A hunk is one of the file's diff against
 * HEAD: staging puts it in the index, unstaging takes it out; one already there (or not there) is left as it is.
 */
export async function stage(status: RepositoryStatus, selection: GitSelection): Promise<void> {
  const { files, patches } = await resolveSelection(status, selection);
  const pending = await pendingInIndex(status.root, patches, "forward");
  if (files.length > 0) await gitStep(["add", "-A", "--", ...pathsOf(files)], { cwd: status.root });
  for (const patch of pending) await gitStep(["apply", "--cached", "--whitespace=nowarn", "-"], { cwd: status.root, input: patch });
}

export async function unstage(status: RepositoryStatus, selection: GitSelection): Promise<void> {
  const { files, patches } = await resolveSelection(status, selection);
  const pending = await pendingInIndex(status.root, patches, "reverse");
  if (files.length > 0) {
    const paths = pathsOf(files);
    // Before the first commit there is no HEAD to reset to: the files leave the index, the working tree keeps them.
    if (status.head) await gitStep(["reset", "-q", status.head, "--", ...paths], { cwd: status.root });
    else await gitStep(["rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", ...paths], { cwd: status.root });
  }
  for (const patch of pending) await gitStep(["apply", "--cached", "--whitespace=nowarn", "-R", "-"], { cwd: status.root, input: patch });
}

/**
 * The hunks' patches still to put in the index (or take out of it: `reverse`), checked before anything
 * changes: one already done is left out, and one git would not apply is a 409 with its words.
 */
async function pendingInIndex(root: string, patches: ResolvedSelection["patches"], direction: "forward" | "reverse"): Promise<string[]> {
  const pending: string[] = [];
  for (const { patch } of patches) {
    const done = await runGit(["apply", "--cached", "--check", ...(direction === "reverse" ? [] : ["-R"])], { cwd: root, input: patch, env: LITERAL_PATHS });
    if (done.code === 0) continue;
    await gitStep(["apply", "--cached", "--check", ...(direction === "reverse" ? ["-R"] : [])], { cwd: root, input: patch });
    pending.push(patch);
  }
  return pending;
}

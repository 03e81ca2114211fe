import type { GitSelection } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { gitStep, LITERAL_PATHS } from "./git-step.ts";
import { pathsOf, resolveSelection } from "./selection.ts";
import type { RepositoryStatus } from "./working-tree-changes.ts";

/**
 * Stages and unstages whole files and hunks with real git. A hunk is one of the file's diff against
 * HEAD: staging puts it in the index, unstaging takes it out; one already there (or not there) is left as it is.
 */
export async function stage(status: RepositoryStatus, selection: GitSelection): Promise<void> {
  const { files, patches } = await resolveSelection(status, selection);
  if (files.length > 0) await gitStep(["add", "-A", "--", ...pathsOf(files)], { cwd: status.root });
  for (const { patch } of patches) await applyToIndex(status.root, patch, "forward");
}

export async function unstage(status: RepositoryStatus, selection: GitSelection): Promise<void> {
  const { files, patches } = await resolveSelection(status, selection);
  if (files.length > 0) {
    const paths = pathsOf(files);
    // Before the first commit there is no HEAD to reset to: the files leave the index, the working tree keeps them.
    if (status.head) await gitStep(["reset", "-q", status.head, "--", ...paths], { cwd: status.root });
    else await gitStep(["rm", "-q", "-r", "--cached", "--ignore-unmatch", "--", ...paths], { cwd: status.root });
  }
  for (const { patch } of patches) await applyToIndex(status.root, patch, "reverse");
}

/** Applies a hunk's patch to the index (or takes it out: `reverse`); done already is no change, anything else git refuses is 409. */
async function applyToIndex(root: string, patch: string, direction: "forward" | "reverse"): Promise<void> {
  const args = ["apply", "--cached", "--whitespace=nowarn", ...(direction === "reverse" ? ["-R"] : [])];
  const undoArgs = ["apply", "--cached", "--check", ...(direction === "reverse" ? [] : ["-R"])];
  const done = await runGit(undoArgs, { cwd: root, input: patch, env: LITERAL_PATHS });
  if (done.code === 0) return;
  await gitStep(args, { cwd: root, input: patch });
}

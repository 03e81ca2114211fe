import { gitOutput } from "./git-runner.ts";

/** Whether `folder` is inside a git work tree, asked of git itself. */
export async function isGitWorkTree(folder: string): Promise<boolean> {
  return (await gitOutput(["rev-parse", "--is-inside-work-tree"], { cwd: folder })) === "true";
}

export async function remoteUrl(folder: string, remote = "origin"): Promise<string | undefined> {
  return gitOutput(["remote", "get-url", remote], { cwd: folder });
}

/**
 * The branch a new worktree should start from when the user chose none: the remote's default branch
 * (`origin/HEAD`), else the branch checked out now.
 */
export async function defaultBranch(folder: string, remote = "origin"): Promise<string | undefined> {
  const remoteHead = await gitOutput(["symbolic-ref", "--quiet", "--short", `refs/remotes/${remote}/HEAD`], { cwd: folder });
  if (remoteHead) return remoteHead.slice(remote.length + 1);
  const current = await gitOutput(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: folder });
  return current || undefined;
}

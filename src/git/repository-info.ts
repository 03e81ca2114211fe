import { gitOutput, runGit } from "./git-runner.ts";

/** What a project records of the git work tree its folder is in. */
export interface WorkTreeFacts {
  /** origin's URL as git resolves it (`url.<base>.insteadOf` applied); undefined without an origin. */
  origin: string | undefined;
  /**
   * The branch a new worktree should start from when the user chose none: the remote's default branch
   * (`origin/HEAD`), else the branch checked out now; undefined on a detached HEAD.
   */
  defaultBranch: string | undefined;
}

/**
 * The facts of the git work tree holding `folder`, asked of git itself; undefined when `folder` is in
 * none. Two git processes for a folder without an origin, three with one.
 */
export async function workTreeFacts(folder: string): Promise<WorkTreeFacts | undefined> {
  // `true` (or `false`: a bare repository, a .git folder), then HEAD's branch as `symbolic-ref --short`
  // shortens it, `HEAD` when detached; before the first commit git fails after printing `true`.
  const asked = await runGit(["rev-parse", "--is-inside-work-tree", "--abbrev-ref=loose", "HEAD"], { cwd: folder, timeoutMs: 10_000 });
  const [inside, head] = asked.stdout.split("\n");
  if (inside !== "true") return undefined;
  const origin = await gitOutput(["remote", "get-url", "origin"], { cwd: folder });
  const remoteHead = origin ? await gitOutput(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], { cwd: folder }) : undefined;
  if (remoteHead) return { origin, defaultBranch: remoteHead.slice("origin/".length) };
  if (asked.code === 0) return { origin, defaultBranch: head && head !== "HEAD" ? head : undefined };
  return { origin, defaultBranch: (await gitOutput(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: folder })) || undefined };
}

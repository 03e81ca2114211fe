import { gitOutput, runGit } from "./git-runner.ts";

/** git's id of the empty tree: what a repository without a commit is compared against. */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export interface Repository {
  root: string;
  /** null before the first commit. */
  head: string | null;
  /** null on a detached HEAD. */
  branch: string | null;
  /** What changes are against: HEAD, or the empty tree before the first commit. */
  base: string;
}

/**
 * The work tree holding `folder`: its root, HEAD and branch, asked of git itself; undefined when git
 * finds none there (a plain folder, a bare repository, a .git folder). One git process answers for a
 * branch or a detached HEAD with a commit, and for a folder outside git; before the first commit, three.
 */
export async function readRepository(folder: string): Promise<Repository | undefined> {
  // The root, HEAD's commit, then HEAD's branch as `symbolic-ref --short` shortens it, or `HEAD` when detached.
  const asked = await runGit(["rev-parse", "--show-toplevel", "HEAD", "--abbrev-ref=loose", "HEAD"], { cwd: folder, timeoutMs: 10_000 });
  // Nothing printed: git found no work tree here (the second question would fail alike).
  if (asked.code !== 0 && asked.stdout === "") return undefined;
  const lines = asked.stdout.split("\n");
  const [head, branch] = lines.slice(-3, -1);
  if (asked.code === 0 && lines.length >= 4 && head && branch) {
    return { root: lines.slice(0, -3).join("\n"), head, branch: branch === "HEAD" ? null : branch, base: head };
  }
  return askedApart(folder);
}

/** The root and HEAD's commit (none yet: `--verify -q` fails quietly, exit 1, after the root), then the branch. */
async function askedApart(folder: string): Promise<Repository | undefined> {
  const asked = await runGit(["rev-parse", "--show-toplevel", "--verify", "-q", "HEAD"], { cwd: folder, timeoutMs: 10_000 });
  const lines = asked.stdout.replace(/\n$/, "").split("\n");
  const head = asked.code === 0 ? (lines.pop() ?? null) : null;
  const root = lines.join("\n");
  if (!root || (asked.code !== 0 && asked.code !== 1)) return undefined;
  const branch = (await gitOutput(["symbolic-ref", "--short", "-q", "HEAD"], { cwd: root })) || null;
  return { root, head, branch, base: head ?? EMPTY_TREE };
}

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
 * The facts of the git work tree holding `folder`; undefined when `folder` is in none. Two git
 * processes for a repository with a commit and no origin, three with one.
 */
export async function workTreeFacts(folder: string): Promise<WorkTreeFacts | undefined> {
  const repository = await readRepository(folder);
  if (!repository) return undefined;
  const origin = await gitOutput(["remote", "get-url", "origin"], { cwd: folder });
  const remoteHead = origin ? await gitOutput(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], { cwd: folder }) : undefined;
  return { origin, defaultBranch: remoteHead ? remoteHead.slice("origin/".length) : (repository.branch ?? undefined) };
}

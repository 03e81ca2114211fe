import { InvalidInputError, NotFoundError } from "../errors.ts";
import type { Branch, BranchList, NewBranch } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { gitStep } from "./git-step.ts";
import type { Repository } from "./repository-info.ts";

const FIELDS = ["%(refname:short)", "%(objectname)", "%(HEAD)", "%(upstream:short)", "%(upstream:track,nobracket)"].join("%00");

/** The local branches, by name, each with its upstream and how far it is ahead of and behind it. */
export async function listBranches(repo: Repository): Promise<BranchList> {
  const listed = await gitStep(["for-each-ref", `--format=${FIELDS}`, "--sort=refname", "refs/heads/"], { cwd: repo.root });
  const branches = listed.stdout
    .split("\n")
    .filter(Boolean)
    .map((line): Branch => {
      const [name = "", head = "", current, upstream = "", track = ""] = line.split("\0");
      const count = (word: string) => Number(new RegExp(`${word} (\\d+)`).exec(track)?.[1] ?? 0);
      const tracked = upstream !== "" && track !== "gone";
      return {
        name,
        head,
        current: current === "*",
        upstream: upstream || null,
        ahead: tracked ? count("ahead") : null,
        behind: tracked ? count("behind") : null,
      };
    });
  return { current: repo.branch, head: repo.head, branches };
}

/** A new branch at `from` (HEAD by default), not checked out: 400 for a name git would not take, 404 for a `from` that names no commit, 409 when it exists. */
export async function createBranch(repo: Repository, body: NewBranch): Promise<Branch> {
  await checkBranchName(repo, body.name, "name");
  const from = body.from ?? "HEAD";
  const start = from.startsWith("-") ? undefined : await runGit(["rev-parse", "--verify", "-q", `${from}^{commit}`], { cwd: repo.root });
  if (start?.code !== 0) throw new NotFoundError(`from: ${from} names no commit in ${repo.root}`);
  await gitStep(["branch", "--no-track", body.name, start.stdout.trim()], { cwd: repo.root });
  const made = (await listBranches(repo)).branches.find((branch) => branch.name === body.name);
  if (!made) throw new Error(`branch ${body.name} was made but is not listed`);
  return made;
}

/**
 * Checks out a local branch, or a remote's branch of that name as a new local branch tracking it. Local
 * changes git would have to overwrite make it refuse (409, its words); nothing is forced.
 */
export async function checkout(repo: Repository, branch: string): Promise<void> {
  await checkBranchName(repo, branch, "branch");
  const known = (await gitStep(["for-each-ref", "--format=%(refname)", `refs/heads/${branch}`, `refs/remotes/*/${branch}`], { cwd: repo.root })).stdout.trim();
  if (!known) throw new NotFoundError(`${repo.root} has no branch ${branch}, nor a remote's`);
  await gitStep(["switch", "--quiet", branch], { cwd: repo.root });
}

/** 400 unless `name` is a branch name git takes (no `-` first, no glob characters, no `..`). */
async function checkBranchName(repo: Repository, name: string, field: string): Promise<void> {
  if (name.startsWith("-") || (await runGit(["check-ref-format", "--branch", name], { cwd: repo.root })).code !== 0) {
    throw new InvalidInputError(`${field}: ${JSON.stringify(name)} is not a branch name git takes`);
  }
}

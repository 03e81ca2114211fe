import { ConflictError, NotFoundError, UpstreamError } from "../errors.ts";
import { redactCredentials } from "../projects/repo-url.ts";
import type { PullBody, PushBody, RemoteResult } from "../schemas/git.ts";
import { gitOutput, type GitResult, runGit } from "./git-runner.ts";
import { gitRefusal, gitStep, outputOf } from "./git-step.ts";
import { withoutProgress } from "./remote-progress.ts";
import type { Repository } from "./repository-info.ts";

/** A push or pull waits this long for the remote (and its hooks). */
const REMOTE_TIMEOUT_MS = 5 * 60_000;

/** A configured remote named by the client (404 otherwise). */
async function knownRemote(repo: Repository, remote: string): Promise<string> {
  const remotes = (await gitStep(["remote"], { cwd: repo.root })).stdout.split("\n").filter(Boolean);
  if (!remotes.includes(remote)) throw new NotFoundError(`${repo.root} has no remote ${remote}`);
  return remote;
}

/** Runs a push or pull with git's progress handed, line by line, to `onProgress`; the result's stderr without it. */
async function exchange(repo: Repository, args: string[], onProgress: (line: string) => void): Promise<GitResult> {
  const [command, ...rest] = args as [string, ...string[]];
  const result = await runGit([command, "--progress", ...rest], { cwd: repo.root, timeoutMs: REMOTE_TIMEOUT_MS, onStderrLine: onProgress });
  return { ...result, stderr: withoutProgress(result.stderr) };
}

const config = async (repo: Repository, key: string) => (await gitOutput(["config", "--get", key], { cwd: repo.root })) || undefined;

/**
 * Pushes a local branch (the current one by default) to the remote's branch of the same name. Force is
 * only ever `--force-with-lease`. A push the remote rejects is 409 with its words; one that does not reach
 * it (no access, no network) is 502 with git's words. git's progress goes to `onProgress` as it comes.
 */
export async function push(repo: Repository, body: PushBody, onProgress: (line: string) => void): Promise<RemoteResult> {
  const branch = body.branch ?? repo.branch;
  if (!branch) throw new ConflictError("HEAD is detached: name the branch to push");
  const local = branch.startsWith("-") ? undefined : await gitOutput(["rev-parse", "--verify", "-q", `refs/heads/${branch}`], { cwd: repo.root });
  if (!local) throw new NotFoundError(`${repo.root} has no branch ${branch}`);
  const remote = await knownRemote(repo, body.remote ?? (await config(repo, `branch.${branch}.remote`)) ?? "origin");
  const args = ["push", "--porcelain", ...(body.setUpstream ? ["--set-upstream"] : []), ...(body.force ? ["--force-with-lease"] : [])];
  const result = await exchange(repo, [...args, remote, `refs/heads/${branch}:refs/heads/${branch}`], onProgress);
  const output = redactCredentials(outputOf(result));
  if (result.code !== 0) {
    // --porcelain marks each ref the remote refused with `!`.
    if (result.stdout.split("\n").some((line) => line.startsWith("!"))) throw new ConflictError(`git push was rejected: ${output}`);
    throw new UpstreamError(`git push failed: ${output}`);
  }
  return { remote, branch, head: local, output };
}

/**
 * Pulls into the current branch from its upstream (or the remote and branch named): a fast-forward only
 * unless `mode` asks to merge or rebase. What git refuses (diverged, local changes in the way, conflicts)
 * is 409 with its words, and a merge or rebase that stopped on a conflict is undone; a remote it cannot
 * reach is 502. git's progress goes to `onProgress` as it comes.
 */
export async function pull(repo: Repository, body: PullBody, onProgress: (line: string) => void): Promise<RemoteResult> {
  if (!repo.branch) throw new ConflictError("HEAD is detached: check out the branch to pull into");
  const upstreamBranch = (await config(repo, `branch.${repo.branch}.merge`))?.replace(/^refs\/heads\//, "");
  const remote = body.remote ?? (await config(repo, `branch.${repo.branch}.remote`));
  const branch = body.branch ?? upstreamBranch;
  if (!remote || !branch) throw new ConflictError(`${repo.branch} tracks no remote branch: name the remote and the branch to pull`);
  if (branch.startsWith("-")) throw new NotFoundError(`${remote} has no branch ${branch}`);
  await knownRemote(repo, remote);
  const mode = body.mode ?? "ff-only";
  const how = mode === "ff-only" ? ["--ff-only"] : mode === "merge" ? ["--no-rebase", "--no-edit"] : ["--rebase"];
  const result = await exchange(repo, ["pull", ...how, remote, `refs/heads/${branch}`], onProgress);
  const output = redactCredentials(outputOf(result));
  if (result.code !== 0) {
    await undoStoppedPull(repo);
    if (/Could not read from remote|unable to access|does not appear to be a git repository|couldn't find remote ref/i.test(output)) {
      throw new UpstreamError(`git pull failed: ${output}`);
    }
    throw gitRefusal("pull", output, repo.root);
  }
  const head = (await gitStep(["rev-parse", "HEAD"], { cwd: repo.root })).stdout.trim();
  return { remote, branch, head, output };
}

/** A merge or rebase that stopped on a conflict is aborted: the branch and working tree go back as they were. */
async function undoStoppedPull(repo: Repository): Promise<void> {
  if ((await runGit(["rev-parse", "-q", "--verify", "MERGE_HEAD"], { cwd: repo.root })).code === 0) await gitStep(["merge", "--abort"], { cwd: repo.root });
  const rebasing = (await runGit(["rev-parse", "-q", "--verify", "REBASE_HEAD"], { cwd: repo.root })).code === 0;
  if (rebasing) await gitStep(["rebase", "--abort"], { cwd: repo.root });
}

import type { Clock } from "../clock.ts";
import { ConflictError } from "../errors.ts";
import type { Commit, CommitBody } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { gitRefusal, gitStep, outputOf } from "./git-step.ts";
import type { Repository } from "./repository-info.ts";

/** Hooks may run tests: a commit gets ten minutes. */
const COMMIT_TIMEOUT_MS = 10 * 60_000;

/**
 * Commits what is staged with the machine's own git identity and configuration, hooks included (their
 * output comes back). A hook that fails, nothing staged, or no identity is 409 with git's words; a
 * detached HEAD is refused unless `allowDetached`.
 */
export async function commit(repo: Repository, body: CommitBody, clock: Clock): Promise<Commit> {
  if (repo.head && !repo.branch && !body.allowDetached) {
    throw new ConflictError("HEAD is detached: the commit would be on no branch; check out a branch, or ask with allowDetached");
  }
  if (body.amend && !repo.head) throw new ConflictError("there is no commit to amend yet");
  const date = `@${Math.floor(clock.now() / 1000)} +0000`;
  const args = ["commit", "--quiet", "--cleanup=strip", "-F", "-", ...(body.amend ? ["--amend"] : []), ...(body.noVerify ? ["--no-verify"] : [])];
  // An amend keeps its commit's author date; the commit's own date is now, on the server's clock.
  const env = { GIT_COMMITTER_DATE: date, ...(body.amend ? {} : { GIT_AUTHOR_DATE: date }) };
  const result = await runGit(args, { cwd: repo.root, input: body.message, env, timeoutMs: COMMIT_TIMEOUT_MS });
  const output = outputOf(result);
  if (result.code !== 0) throw gitRefusal("commit", output || `it exited with ${result.code}`, repo.root);
  const sha = (await gitStep(["rev-parse", "HEAD"], { cwd: repo.root })).stdout.trim();
  return { sha, branch: repo.branch, output };
}

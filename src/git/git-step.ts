import { ConflictError } from "../errors.ts";
import { runGit, type GitOptions, type GitResult } from "./git-runner.ts";

/** Paths given to git are file names, never patterns (a file may be called `*.txt`). */
export const LITERAL_PATHS = { GIT_LITERAL_PATHSPECS: "1" };

/**
 * Runs one git step of a change to a repository and returns its result; when git refuses, a 409 with
 * git's own words (another process's `index.lock` among them), since what failed is the repository's state.
 */
export async function gitStep(args: string[], options: GitOptions & { cwd: string }): Promise<GitResult> {
  const result = await runGit(args, { timeoutMs: 60_000, ...options, env: { ...LITERAL_PATHS, ...options.env } });
  if (result.code === 0) return result;
  const said = result.stderr.trim() || result.stdout.trim();
  if (/index\.lock': File exists/.test(said)) {
    throw new ConflictError(`another git process is using the repository (its index.lock exists in ${options.cwd}); try again when it has finished`);
  }
  throw new ConflictError(`git ${args[0]} failed: ${said}`);
}

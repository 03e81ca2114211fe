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
  throw gitRefusal(args[0] ?? "", result.stderr.trim() || result.stdout.trim(), options.cwd);
}

/** git refused `command` in the repository at `cwd`, saying `said`: a 409 in its words, or naming the lock another process holds. */
export function gitRefusal(command: string, said: string, cwd: string): ConflictError {
  if (/index\.lock': File exists/.test(said)) {
    return new ConflictError(`another git process is using the repository (its index.lock exists in ${cwd}); try again when it has finished`);
  }
  return new ConflictError(`git ${command} failed: ${said}`);
}

const MAX_OUTPUT = 64 * 1024;

/** What git (and its hooks, and a remote) wrote, stdout then stderr, cut to a size an answer can carry. */
export function outputOf(result: { stdout: string; stderr: string }): string {
  const all = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join("\n");
  return all.length > MAX_OUTPUT ? `${all.slice(0, MAX_OUTPUT)}\n… (cut at 64 KiB)` : all;
}

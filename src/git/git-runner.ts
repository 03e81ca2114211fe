import { runCommand, type CommandResult } from "../process/run-command.ts";

export type GitResult = CommandResult;

export interface GitOptions {
  cwd?: string;
  /** Killed after this long; the result then has code -1 and says so in stderr. */
  timeoutMs?: number;
  /** Called with each line git writes to stderr (progress uses carriage returns). */
  onStderrLine?: (line: string) => void;
  env?: Record<string, string>;
  /** Written to git's stdin (a patch for `git apply`). */
  input?: string;
}

/**
 * Environment for every git we run: never prompt (there is no terminal to answer), never open an
 * editor or pager, and allow only the ordinary transports — `ext::` and friends run commands.
 */
export const GIT_ENV: Record<string, string> = {
  GIT_TERMINAL_PROMPT: "0",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
  GIT_EDITOR: "true",
  GIT_PAGER: "cat",
  GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
  LC_ALL: "C",
};

/** Runs `git <args>` without a shell and collects its output. */
export async function runGit(args: string[], options: GitOptions = {}): Promise<GitResult> {
  const result = await runCommand(["git", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...GIT_ENV, ...options.env },
    timeoutMs: options.timeoutMs,
    onStderrLine: options.onStderrLine,
    input: options.input,
  });
  if (result.timedOut) return { ...result, stderr: `${result.stderr}\ngit ${args[0]} took longer than ${options.timeoutMs} ms` };
  return result;
}

/** Runs git and returns trimmed stdout, or undefined when git fails. */
export async function gitOutput(args: string[], options: GitOptions = {}): Promise<string | undefined> {
  const result = await runGit(args, { timeoutMs: 10_000, ...options });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

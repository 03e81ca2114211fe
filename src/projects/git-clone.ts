import { runGit } from "../git/git-runner.ts";
import { redactCredentials } from "./repo-url.ts";

export interface CloneProgress {
  phase: string;
  percent: number;
}

const PROGRESS = /^(?:remote: )?([A-Za-z ]+):\s+(\d{1,3})%/;

/** Reads git's progress lines ("Receiving objects:  45% (…)"). */
export function parseCloneProgress(line: string): CloneProgress | undefined {
  const match = PROGRESS.exec(line);
  return match ? { phase: match[1]!.trim(), percent: Number(match[2]) } : undefined;
}

/** The lines of git's stderr that say what went wrong, without the progress noise or credentials. */
export function cloneFailureReason(stderr: string): string {
  const lines = stderr
    .split(/[\r\n]+/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !parseCloneProgress(line) && !line.startsWith("Cloning into"));
  const fatal = lines.filter((line) => /^(fatal|error):/.test(line));
  return redactCredentials((fatal.length > 0 ? fatal : lines).slice(-3).join(" ")) || "git clone failed";
}

export interface CloneOptions {
  url: string;
  destination: string;
  timeoutMs: number;
  onProgress: (progress: CloneProgress) => void;
}

/**
 * `git clone` into `destination`, leaving origin without the URL's credentials; resolves with the
 * failure reason, or undefined on success.
 */
export async function gitClone(options: CloneOptions): Promise<string | undefined> {
  const result = await runGit(["clone", "--progress", "--", options.url, options.destination], {
    timeoutMs: options.timeoutMs,
    onStderrLine: (line) => {
      const progress = parseCloneProgress(line);
      if (progress) options.onProgress(progress);
    },
  });
  if (result.code !== 0) return cloneFailureReason(result.stderr);
  const withoutCredentials = redactCredentials(options.url);
  if (withoutCredentials === options.url) return undefined;
  // git keeps the URL it cloned from as origin's; the credentials were for this one clone.
  const reset = await runGit(["remote", "set-url", "origin", withoutCredentials], { cwd: options.destination, timeoutMs: options.timeoutMs });
  return reset.code === 0 ? undefined : `could not remove the credentials from the clone's origin: ${cloneFailureReason(reset.stderr)}`;
}

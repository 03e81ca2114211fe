export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd?: string;
  /** Killed after this long; the result then has code -1 and says so in stderr. */
  timeoutMs?: number;
  /** Called with each line git writes to stderr (progress uses carriage returns). */
  onStderrLine?: (line: string) => void;
  env?: Record<string, string>;
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

async function readLines(stream: ReadableStream<Uint8Array>, onLine?: (line: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let all = "";
  let pending = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    all += text;
    if (!onLine) continue;
    pending += text;
    const parts = pending.split(/[\r\n]/);
    pending = parts.pop() ?? "";
    for (const part of parts) if (part.length > 0) onLine(part);
  }
  if (onLine && pending.length > 0) onLine(pending);
  return all;
}

/** Runs `git <args>` without a shell and collects its output. */
export async function runGit(args: string[], options: GitOptions = {}): Promise<GitResult> {
  const child = Bun.spawn(["git", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...GIT_ENV, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = options.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs)
    : undefined;
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    readLines(child.stderr, options.onStderrLine),
    child.exited,
  ]);
  clearTimeout(timer);
  if (timedOut) return { code: -1, stdout, stderr: `${stderr}\ngit ${args[0]} took longer than ${options.timeoutMs} ms` };
  return { code, stdout, stderr };
}

/** Runs git and returns trimmed stdout, or undefined when git fails. */
export async function gitOutput(args: string[], options: GitOptions = {}): Promise<string | undefined> {
  const result = await runGit(args, { timeoutMs: 10_000, ...options });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

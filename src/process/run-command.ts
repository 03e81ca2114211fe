export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Killed because it ran past `timeoutMs`. */
  timedOut: boolean;
}

export interface CommandOptions {
  cwd?: string;
  /** The whole environment of the child (not merged with ours). */
  env?: Record<string, string | undefined>;
  /** Killed after this long. */
  timeoutMs?: number;
  /** Called with each line written to stderr (progress output uses carriage returns). */
  onStderrLine?: (line: string) => void;
}

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

/** Runs a program without a shell and collects its output, killing it if it runs too long. */
export async function runCommand(command: string[], options: CommandOptions = {}): Promise<CommandResult> {
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env ?? process.env,
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
  return { code: timedOut ? -1 : code, stdout, stderr, timedOut };
}

import type { ChildProcesses } from "./child-processes.ts";

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
  /** Written to the child's stdin (which is closed otherwise). */
  input?: string;
  /** Called with each line written to stderr (progress output uses carriage returns). */
  onStderrLine?: (line: string) => void;
  /** Called with each line written to stdout. */
  onStdoutLine?: (line: string) => void;
  /** Records the child while it runs, so shutdown and the next start can stop it. */
  children?: ChildProcesses;
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

/** Kills the child and everything it started (wrapper scripts leave children holding its pipes). */
export function killGroup(child: { pid: number }): void {
  signalGroup(child, "SIGKILL");
}

/** Signals the child's process group (it was started detached), or the child alone where the group is gone. */
export function signalGroup(child: { pid: number }, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      process.kill(child.pid, signal);
    } catch {
      // it has exited
    }
  }
}

/**
 * Runs a program without a shell and collects its output. Past `timeoutMs` its whole process group
 * is killed and the result returned at once, without waiting for output that may never end.
 */
export async function runCommand(command: string[], options: CommandOptions = {}): Promise<CommandResult> {
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdin: options.input === undefined ? "ignore" : Buffer.from(options.input),
    stdout: "pipe",
    stderr: "pipe",
    // Its own process group, so a timeout can end the grandchildren too.
    detached: true,
  });
  options.children?.track(child, command);
  const finished = Promise.all([readLines(child.stdout, options.onStdoutLine), readLines(child.stderr, options.onStderrLine), child.exited]);
  if (!options.timeoutMs) {
    const [stdout, stderr, code] = await finished;
    return { code, stdout, stderr, timedOut: false };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), options.timeoutMs)));
  const outcome = await Promise.race([finished, timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    killGroup(child);
    return { code: -1, stdout: "", stderr: "", timedOut: true };
  }
  const [stdout, stderr, code] = outcome;
  return { code, stdout, stderr, timedOut: false };
}

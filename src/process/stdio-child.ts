import type { ChildProcesses } from "./child-processes.ts";
import { killGroup, signalGroup } from "./run-command.ts";

/** Keeps the end of what the child wrote to stderr: the reason given when it crashes. */
const STDERR_TAIL_BYTES = 4096;

/** How a child that speaks a protocol over its stdio is started, and where it is recorded. */
export interface StdioSpawn {
  command: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Where the child is recorded while it runs, so shutdown and the next start can stop it. */
  children: ChildProcesses;
  /** Told each line the child writes to stderr, as it comes. */
  onStderrLine?: (line: string) => void;
}

/** A child process Atrium talks to over stdin/stdout, in its own process group (agents, MCP servers). */
export interface StdioChild {
  /** Writes to its stdin and waits until the bytes are handed to the OS. */
  write(chunk: Uint8Array | string): Promise<void>;
  /** Closes its stdin. */
  endInput(): Promise<void>;
  stdout: ReadableStream<Uint8Array>;
  /** Settles with the exit code when the child has ended. */
  exited: Promise<number>;
  readonly running: boolean;
  /** The end of what the child wrote to stderr. */
  stderrTail(): string;
  /** How the child ended ("exit code 3", "signal SIGKILL"); undefined while it runs. */
  exitStatus(): string | undefined;
  /** Ends the child and whatever it started. */
  stop(): void;
  /**
   * Ends it gently: its stdin is closed (most agents then finish their writes and exit), then SIGTERM,
   * and SIGKILL for the whole group at last; `graceMs` is how long that may take in all.
   */
  stopGently(graceMs: number): Promise<void>;
}

export class StdioSpawnError extends Error {}

/** Starts the command without a shell; a command that cannot be started is a StdioSpawnError naming it. */
export function spawnStdioChild(spawn: StdioSpawn): StdioChild {
  let child: Bun.Subprocess<"pipe", "pipe", "pipe">;
  try {
    child = Bun.spawn(spawn.command, { cwd: spawn.cwd, env: spawn.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (error) {
    throw new StdioSpawnError(`could not start ${spawn.command[0]}: ${(error as Error).message}`);
  }
  spawn.children.track(child, spawn.command);
  const stdin = child.stdin;
  const stderr = { tail: "" };
  void collectTail(child.stderr, stderr, spawn.onStderrLine);
  let stopped = false;
  return {
    async write(chunk) {
      stdin.write(chunk);
      await stdin.flush();
    },
    async endInput() {
      await stdin.end();
    },
    stdout: child.stdout,
    exited: child.exited,
    get running() {
      return !stopped && child.exitCode === null && child.signalCode === null;
    },
    stderrTail: () => stderr.tail,
    exitStatus: () => (child.signalCode ? `signal ${child.signalCode}` : child.exitCode !== null ? `exit code ${child.exitCode}` : undefined),
    stop: () => {
      stopped = true;
      killGroup(child);
    },
    async stopGently(graceMs) {
      stopped = true;
      const exitedWithin = (ms: number) => Promise.race([child.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
      await Promise.resolve(stdin.end()).catch(() => undefined);
      if (!(await exitedWithin(graceMs * 0.7))) {
        signalGroup(child, "SIGTERM");
        await exitedWithin(graceMs * 0.3);
      }
      // Whatever it started and left in its group goes too.
      killGroup(child);
    },
  };
}

async function collectTail(stream: ReadableStream<Uint8Array>, into: { tail: string }, onLine?: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let partial = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    into.tail = (into.tail + text).slice(-STDERR_TAIL_BYTES);
    if (!onLine) continue;
    const lines = (partial + text).split("\n");
    partial = lines.pop()!.slice(-STDERR_TAIL_BYTES);
    for (const line of lines) onLine(line);
  }
  if (partial) onLine?.(partial);
}

/** The last non-empty lines of a child's stderr, for the reason a failure is reported with. */
/** `: <the last lines>` for the end of an error message, or nothing when the text has none. */
export function lastLinesSuffix(text: string, count = 1): string {
  const lines = lastLines(text, count);
  return lines ? `: ${lines}` : "";
}

export function lastLines(text: string, count = 1): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .slice(-count)
    .join("\n");
}

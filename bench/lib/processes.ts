import type { Subprocess } from "bun";
import { availableParallelism, tmpdir } from "node:os";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const cpuCount = availableParallelism();
const taskset = Bun.which("taskset");

/**
 * With two or more cores and taskset, servers run on CPU 0 and load generators or clients on CPU 1,
 * so that the figures describe the server rather than the two sides fighting over one core.
 */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;
export const pinning =
  taskset !== null && cpuCount >= 2
    ? `server on CPU ${SERVER_CPU}, load generator / clients on CPU ${LOAD_CPU} (taskset)`
    : `not pinned (${taskset === null ? "taskset is not installed" : "only one CPU"})`;

export function onCpu(cpu: number, command: string[]): string[] {
  return taskset !== null && cpuCount >= 2 ? [taskset, "-c", String(cpu), ...command] : command;
}

export function tempDir(purpose: string): string {
  return mkdtempSync(join(tmpdir(), `atrium-bench-${purpose}-`));
}

export async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM (the servers shut down gracefully on it), then SIGKILL if the child outlives the grace period. */
export async function stopProcess(child: Subprocess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  try {
    await withTimeout(child.exited, graceMs, "still running");
  } catch {
    child.kill("SIGKILL");
    await child.exited;
  }
}

export interface RunningServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/**
 * Starts a server process and resolves once it prints `listening on <url>`, which both Atrium and the
 * bare baseline print only when they accept connections.
 */
export async function startServer(command: string[], env: Record<string, string>, timeoutMs = 10_000): Promise<RunningServer> {
  const child = Bun.spawn(command, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(child.stderr).text();
  try {
    const url = await withTimeout(readUntil(child.stdout, LISTENING), timeoutMs, `${command.join(" ")} did not print "listening on" within ${timeoutMs} ms`);
    return { url, pid: child.pid, stop: () => stopProcess(child) };
  } catch (error) {
    await stopProcess(child);
    throw new Error(`${(error as Error).message}\n${await stderr}`);
  }
}

async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the process ended before printing ${pattern}; it printed: ${text}`);
    text += decoder.decode(value, { stream: true });
    const match = pattern.exec(text);
    if (match) {
      // Keep reading so that later output can never fill the pipe and block the server.
      void drain(reader);
      return match[1]!;
    }
  }
}

async function drain(reader: { read(): Promise<{ done: boolean }> }): Promise<void> {
  try {
    while (!(await reader.read()).done);
  } catch {
    // the process is gone
  }
}

export interface Completed {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runToCompletion(command: string[], timeoutMs: number): Promise<Completed> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const finished = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  try {
    const message = `${command.join(" ")} ran longer than ${timeoutMs} ms`;
    const [stdout, stderr, exitCode] = await withTimeout(finished, timeoutMs, message);
    return { exitCode, stdout, stderr };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

/**
 * Runs a script from bench/workers in its own Bun process, pinned to `cpu`, and returns the JSON it
 * prints as its last line. The config travels as JSON in argv.
 */
export async function runWorker<T>(script: string, config: unknown, cpu: number, timeoutMs: number): Promise<T> {
  const path = join(import.meta.dir, "..", "workers", script);
  const command = onCpu(cpu, [process.execPath, path, JSON.stringify(config)]);
  const { exitCode, stdout, stderr } = await runToCompletion(command, timeoutMs);
  if (exitCode !== 0) throw new Error(`worker ${script} failed (exit ${exitCode}):\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as T;
}

/** A port that was free a moment ago, for runs that must know the URL before the server prints it. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/** Resident memory of a process in bytes, from /proc/<pid>/status (VmRSS is in KiB). */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Every process's parent, from /proc/<pid>/stat's ppid field (zombies too, until reaped). */
function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parents;
}

export function childPids(pid: number): number[] {
  return [...parentsByPid()].filter(([, parent]) => parent === pid).map(([child]) => child);
}

/** The processes under `pid`, at any depth, not `pid` itself. */
export function descendantPids(pid: number): number[] {
  const parents = parentsByPid();
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const generation = new Set(frontier);
    frontier = [...parents].filter(([, parent]) => generation.has(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

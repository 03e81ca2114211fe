import type { Subprocess } from "bun";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

const cpuCount = availableParallelism();
const taskset = Bun.which("taskset");
const pinned = taskset !== null && cpuCount >= 2;

/**
 * With two or more cores and taskset, servers run on CPU 0 and load generators or clients on CPU 1,
 * so that the figures describe the server rather than the two sides fighting over one core.
 */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;
export const pinning = pinned
  ? `server on CPU ${SERVER_CPU}, load generator / clients on CPU ${LOAD_CPU} (taskset)`
  : `not pinned (${taskset === null ? "taskset is not installed" : "only one CPU"})`;

export const onCpu = (cpu: number, command: string[]): string[] => (pinned ? [taskset!, "-c", String(cpu), ...command] : command);

/**
 * Lets a process (and what it starts from now on) run on every CPU again: for programs the server
 * starts that are not the server, such as a terminal's shell, as they would run on a real install.
 */
export function unpin(pid: number): void {
  if (pinned) Bun.spawnSync([taskset!, "-a", "-p", "-c", `0-${cpuCount - 1}`, String(pid)], { stdout: "ignore" });
}

/** Pins every thread of this process to `cpu` (the client side) and returns how to undo it. */
export function pinThisProcess(cpu: number): () => void {
  if (!pinned) return () => {};
  const mask = /:\s*([0-9a-f]+)\s*$/.exec(Bun.spawnSync([taskset!, "-p", String(process.pid)]).stdout.toString())?.[1];
  Bun.spawnSync([taskset!, "-a", "-p", "-c", String(cpu), String(process.pid)], { stdout: "ignore" });
  return () => mask && Bun.spawnSync([taskset!, "-a", "-p", mask, String(process.pid)], { stdout: "ignore" });
}

export const tempDir = (purpose: string): string => mkdtempSync(join(tmpdir(), `atrium-bench-${purpose}-`));

export async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every `everyMs` until it gives a value; throws `what` past `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string, everyMs = 20): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await Bun.sleep(everyMs);
  }
}

/** `step(index)` for 0..count-1, each due `intervalMs` after the one before (at once when the last ran over: none is skipped). */
export async function onSchedule(count: number, intervalMs: number, step: (index: number) => Promise<unknown>): Promise<void> {
  const start = performance.now();
  for (let index = 0; index < count; index++) {
    const wait = start + index * intervalMs - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    await step(index);
  }
}

/** Runs `step` over and over, `pauseMs` apart, until the returned stop is awaited (which also awaits the step under way). */
export function repeatUntilStopped(step: () => unknown, pauseMs = 0): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running) {
      await step();
      if (pauseMs > 0) await Bun.sleep(pauseMs);
    }
  })();
  // A step that throws ends the loop; the error comes out of stop.
  loop.catch(() => undefined);
  return async () => {
    running = false;
    await loop;
  };
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

const LISTENING = /listening on (http:\/\/\S+)\s/;
/** What a failed start shows of the process's output. */
const OUTPUT_TAIL = 4_000;

/**
 * The one way the benchmarks start a server, Atrium or any other: spawned, its output read all along (so that it never
 * blocks on a full pipe), ready when it prints `listening on <url>`, or with `poll` when that answers 200 (`readyMs`: spawn
 * to ready). A start that fails stops the process and throws with the tail of its output.
 */
export async function launch(options: {
  command: string[];
  env?: Record<string, string>;
  cwd?: string;
  poll?: { url: string; headers?: Record<string, string> };
  timeoutMs?: number;
}) {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = performance.now();
  const child = Bun.spawn(options.command, { env: { ...process.env, ...options.env }, cwd: options.cwd, stdout: "pipe", stderr: "pipe" });
  let output = "";
  const listening = Promise.withResolvers<string>();
  // Only waited for without `poll`; ending unheard is no failure then.
  listening.promise.catch(() => undefined);
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      output = (output + decoder.decode(chunk, { stream: true })).slice(-OUTPUT_TAIL);
      const match = LISTENING.exec(output);
      if (match) listening.resolve(match[1]!);
    }
  };
  void Promise.all([read(child.stdout), read(child.stderr)])
    .catch(() => undefined)
    .then(() => listening.reject(new Error("the process ended")));
  try {
    const readyAt = options.poll
      ? await pollUntilOk(options.poll.url, options.poll.headers ?? {}, child, started + timeoutMs)
      : await withTimeout(listening.promise, timeoutMs, `no "listening on" within ${timeoutMs} ms`).then((url) => ({ url, at: performance.now() }));
    return { url: readyAt.url, pid: child.pid, readyMs: readyAt.at - started, stop: () => stopProcess(child) };
  } catch (error) {
    await stopProcess(child);
    throw new Error(`${options.command.join(" ")} did not start: ${(error as Error).message}\n${output}`);
  }
}

export type Launched = Awaited<ReturnType<typeof launch>>;

/** While requests go unanswered, a new one this often, up to this many unanswered at once. */
const POLL_GAP_MS = 10;
const MAX_PENDING_POLLS = 1_000;

/**
 * Asks back to back until an answer is 200 (a refused loopback connection fails at once) and returns
 * the URL's origin with the time the 200 came. A request is not waited for before the next: opencode
 * accepts connections before it prints that it listens and never answers a request that came that early.
 */
async function pollUntilOk(url: string, headers: Record<string, string>, child: Subprocess, deadline: number): Promise<{ url: string; at: number }> {
  const controller = new AbortController();
  const pending = new Set<Promise<void>>();
  let readyAt: number | undefined;
  while (readyAt === undefined && performance.now() < deadline && child.exitCode === null) {
    if (pending.size < MAX_PENDING_POLLS) {
      const attempt = (async () => {
        try {
          const response = await fetch(url, { headers, signal: controller.signal });
          await response.arrayBuffer();
          if (response.status === 200) readyAt ??= performance.now();
        } catch {
          // refused (not listening yet), or cut short once another answered
        }
      })();
      pending.add(attempt);
      void attempt.finally(() => pending.delete(attempt));
    }
    await Promise.race([...pending, Bun.sleep(POLL_GAP_MS)]);
  }
  controller.abort();
  if (readyAt === undefined) throw new Error(child.exitCode === null ? `${url} did not answer 200 in time` : `it exited with ${child.exitCode}`);
  return { url: new URL(url).origin, at: readyAt };
}

export async function runToCompletion(command: string[], timeoutMs: number): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const finished = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  try {
    const [stdout, stderr, exitCode] = await withTimeout(finished, timeoutMs, `${command.join(" ")} ran longer than ${timeoutMs} ms`);
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
  const command = onCpu(cpu, [process.execPath, join(import.meta.dir, "..", "workers", script), JSON.stringify(config)]);
  const { exitCode, stdout, stderr } = await runToCompletion(command, timeoutMs);
  if (exitCode !== 0) throw new Error(`worker ${script} failed (exit ${exitCode}):\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as T;
}

/** A port that was free a moment ago, for servers that must come back where their clients expect them. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/** Resident memory of a process in bytes, from /proc/<pid>/status (VmRSS is in KiB); NaN once it is gone. */
export function rssBytes(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The processes under `pid` down to `depth` generations (all by default), not `pid` itself: each
 * process's parent is /proc/<pid>/stat's ppid field (zombies too, until reaped).
 */
export function descendantPids(pid: number, depth = Number.POSITIVE_INFINITY): number[] {
  const parents: [number, number][] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.push([Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid], generation = 0; frontier.length > 0 && generation < depth; generation++) {
    const above = new Set(frontier);
    frontier = parents.filter(([, parent]) => above.has(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

export const childPids = (pid: number): number[] => descendantPids(pid, 1);

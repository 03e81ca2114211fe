/** Starting the servers and reading their session lists as bytes on the wire. */
import { closeSync, openSync, readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import type { Subprocess } from "bun";
import { descendantPids, freePort, onCpu, rssBytes, SERVER_CPU, stopProcess } from "../processes.ts";
import type { BenchServer } from "./servers.ts";

/** What a browser sends; each server picks what it likes of it. */
export const BROWSER_ENCODINGS = "gzip, deflate, br, zstd";
const START_TIMEOUT_MS = 60_000;

export interface Launched {
  base: string;
  pid: number;
  /** Spawn to the first 200 from the polled path. */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns the server pinned to the server CPU on a port chosen beforehand and polls `path` back to
 * back (a refused loopback connection returns at once) until it answers 200. Output goes to a log in
 * `logDir`, whose tail explains a start that failed.
 */
export async function launch(server: BenchServer, path: string, headers: Record<string, string>, logDir: string): Promise<Launched> {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(logDir, `${server.name}.log`);
  const log = openSync(logFile, "a");
  const started = performance.now();
  let child: Subprocess;
  try {
    child = Bun.spawn(onCpu(SERVER_CPU, server.command(port)), {
      env: { ...process.env, ...server.env(port) },
      // Not the repository: opencode takes its working directory as a project.
      cwd: logDir,
      stdout: log,
      stderr: log,
    });
  } finally {
    closeSync(log);
  }
  const readyAt = await pollUntilOk(base + path, headers, child, started + START_TIMEOUT_MS);
  if (readyAt !== undefined) return { base, pid: child.pid, readyMs: readyAt - started, stop: () => stopProcess(child) };
  await stopProcess(child);
  const tail = readFileSync(logFile, "utf8").slice(-2_000);
  throw new Error(`${server.name} did not answer 200 on ${path} within ${START_TIMEOUT_MS} ms:\n${tail}`);
}

/** While requests go unanswered, a new one this often, up to this many unanswered at once. */
const POLL_GAP_MS = 10;
const MAX_PENDING_POLLS = 1_000;

/**
 * Asks back to back until an answer is 200 (a refused loopback connection fails at once), and returns
 * when it came. A request is not waited for before the next: opencode accepts connections before it
 * prints that it listens and never answers a request that came that early, while it answers at once
 * those that come after.
 */
async function pollUntilOk(url: string, headers: Record<string, string>, child: Subprocess, deadline: number): Promise<number | undefined> {
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
  return readyAt;
}

/** Resident memory of the server and anything it started. */
export function treeRssBytes(pid: number): number {
  return [pid, ...descendantPids(pid)].reduce((sum, each) => {
    try {
      return sum + rssBytes(each);
    } catch {
      return sum;
    }
  }, 0);
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** As it came over the connection, before any content decoding. */
  encoded: Buffer;
}

/** Kept-alive connections, as a browser reuses one for the pages of a list. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** node:http leaves the body as sent, where fetch would have decoded it already. */
function rawGet(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent, headers: { ...headers, "accept-encoding": BROWSER_ENCODINGS, accept: "application/json" } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, encoded: Buffer.concat(chunks) }));
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case undefined:
    case "identity":
      return body;
    case "gzip":
      return gunzipSync(body);
    case "br":
      return brotliDecompressSync(body);
    case "zstd":
      return zstdDecompressSync(body);
    case "deflate":
      return inflateSync(body);
    default:
      throw new Error(`unknown content-encoding ${encoding}`);
  }
}

export interface FullList {
  requests: number;
  records: number;
  encodedBytes: number;
  decodedBytes: number;
  encodings: string[];
}

/** The whole list, page after page as the server's own client asks for it, counted before and after decoding. */
export async function readFullList(server: BenchServer, base: string): Promise<FullList> {
  const list: FullList = { requests: 0, records: 0, encodedBytes: 0, decodedBytes: 0, encodings: [] };
  let next: string | undefined = server.fullListPath;
  while (next !== undefined) {
    const answer = await rawGet(base + next, server.headers());
    if (answer.status !== 200) throw new Error(`${server.name}: GET ${next} answered ${answer.status}`);
    const encoding = answer.headers["content-encoding"] as string | undefined;
    const decoded = decode(answer.encoded, encoding);
    const body: unknown = JSON.parse(decoded.toString("utf8"));
    list.requests++;
    list.records += server.records(body).length;
    list.encodedBytes += answer.encoded.length;
    list.decodedBytes += decoded.length;
    list.encodings.push(encoding ?? "identity");
    next = server.nextPage(body, answer.headers.link as string | undefined);
  }
  return list;
}

/** Sequential reads of the first page, each timed to its last (decoded) byte; the first `warmup` are not kept. */
export async function timeFirstPage(server: BenchServer, base: string, warmup: number, count: number): Promise<number[]> {
  const headers = { ...server.headers(), "accept-encoding": BROWSER_ENCODINGS };
  const times: number[] = [];
  for (let index = 0; index < warmup + count; index++) {
    const started = performance.now();
    const response = await fetch(base + server.firstPagePath, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${server.name}: GET ${server.firstPagePath} answered ${response.status}`);
    if (index >= warmup) times.push(performance.now() - started);
  }
  return times;
}

/** Pins every thread of this process to `cpu` (the client side) and returns how to undo it. */
export function pinThisProcess(cpu: number): () => void {
  const taskset = onCpu(cpu, [])[0];
  if (taskset === undefined) return () => {};
  const before = Bun.spawnSync([taskset, "-p", String(process.pid)]).stdout.toString();
  const mask = /:\s*([0-9a-f]+)\s*$/.exec(before)?.[1];
  Bun.spawnSync([taskset, "-a", "-p", "-c", String(cpu), String(process.pid)], { stdout: "ignore" });
  return () => {
    if (mask) Bun.spawnSync([taskset, "-a", "-p", mask, String(process.pid)], { stdout: "ignore" });
  };
}

import { LOAD_CPU, onCpu, runToCompletion, runWorker } from "./processes.ts";
import type { HttpLoadConfig } from "../workers/http-load.ts";

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx: a run with any of these did not measure the route it meant to. */
  non2xx: number;
  socketErrors: number;
}

export interface LoadGenerator {
  name: string;
  run(url: string, headers: Record<string, string>, settings: LoadSettings): Promise<LoadResult>;
}

/** Slack beyond the run's own duration before a stuck generator is killed. */
const GENERATOR_GRACE_MS = 15_000;

/**
 * wrk when it is installed: written in C, it needs a fraction of the CPU the server does, so the
 * server is what saturates. The fallback is a Bun fetch loop in its own process, which is slower than
 * the servers it loads and so understates their difference.
 */
export function chooseLoadGenerator(log: (line: string) => void): LoadGenerator {
  // BENCH_LOAD_GENERATOR=bun forces the fallback, to check it or to compare the two generators.
  if (process.env.BENCH_LOAD_GENERATOR === "bun") return bunFetchGenerator("forced by BENCH_LOAD_GENERATOR=bun");
  const wrk = Bun.which("wrk");
  if (wrk !== null) return wrkGenerator(wrk);
  log("wrk is not on PATH, so the throughput ratio below comes from a Bun fetch load generator, which is");
  log("probably the bottleneck and pulls the ratio towards 1. For a trustworthy figure install wrk:");
  log("  Debian/Ubuntu: apt-get install -y wrk    macOS: brew install wrk");
  return bunFetchGenerator("wrk not installed");
}

function wrkGenerator(wrk: string): LoadGenerator {
  const version = Bun.spawnSync([wrk, "--version"]).stdout.toString().split("\n")[0]?.trim() ?? "";
  return {
    name: `wrk (${version.replace(/\s*Copyright.*$/, "") || "version unknown"})`,
    async run(url, headers, settings) {
      const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
      // One thread: wrk is pinned to a single core, where more threads would only take turns.
      const command = onCpu(LOAD_CPU, [wrk, "-t1", `-c${settings.connections}`, `-d${settings.durationSeconds}s`, "--latency", ...headerArgs, url]);
      const { exitCode, stdout, stderr } = await runToCompletion(command, settings.durationSeconds * 1000 + GENERATOR_GRACE_MS);
      if (exitCode !== 0) throw new Error(`wrk failed (exit ${exitCode}): ${stderr}`);
      return parseWrkOutput(stdout);
    },
  };
}

const DURATION_UNITS_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkNumber(output: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(output);
  return match ? Number(match[1]) : undefined;
}

function wrkLatencyMs(output: string, percent: number): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
  if (!match) throw new Error(`wrk printed no ${percent}% latency (was --latency passed?)`);
  return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
}

export function parseWrkOutput(output: string): LoadResult {
  const requestsPerSecond = wrkNumber(output, /^Requests\/sec:\s+([\d.]+)/m);
  const requests = wrkNumber(output, /^\s*(\d+) requests in /m);
  if (requestsPerSecond === undefined || requests === undefined) throw new Error(`unexpected wrk output:\n${output}`);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requests,
    requestsPerSecond,
    p50Ms: wrkLatencyMs(output, 50),
    p99Ms: wrkLatencyMs(output, 99),
    non2xx: wrkNumber(output, /Non-2xx or 3xx responses:\s+(\d+)/) ?? 0,
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
  };
}

function bunFetchGenerator(reason: string): LoadGenerator {
  return {
    name: `Bun ${Bun.version} fetch loop in a separate process (fallback: ${reason})`,
    run: (url, headers, settings) =>
      runWorker<LoadResult>(
        "http-load.ts",
        { url, headers, ...settings } satisfies HttpLoadConfig,
        LOAD_CPU,
        settings.durationSeconds * 1000 + GENERATOR_GRACE_MS,
      ),
  };
}

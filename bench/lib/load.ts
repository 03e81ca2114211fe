import { LOAD_CPU, onCpu, runToCompletion } from "./processes.ts";

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
}

const DURATION_UNITS_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkLatencyMs(output: string, percent: number): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
  if (!match) throw new Error(`wrk printed no ${percent}% latency:\n${output}`);
  return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
}

/**
 * wrk, pinned to the load CPU with one thread (it has one core): written in C, it needs a fraction
 * of the CPU the server does, so the server is what saturates. Without it the throughput ratios
 * would measure the load generator, so its absence is an error, not a fallback.
 */
export async function wrk(url: string, headers: Record<string, string>, settings: LoadSettings) {
  const wrkPath = Bun.which("wrk");
  if (wrkPath === null) throw new Error("wrk is not on PATH: apt-get install -y wrk (macOS: brew install wrk)");
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
  const command = onCpu(LOAD_CPU, [wrkPath, "-t1", `-c${settings.connections}`, `-d${settings.durationSeconds}s`, "--latency", ...headerArgs, url]);
  const { exitCode, stdout, stderr } = await runToCompletion(command, settings.durationSeconds * 1000 + 15_000);
  if (exitCode !== 0) throw new Error(`wrk failed (exit ${exitCode}): ${stderr}`);
  const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? Number.NaN);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    requests: number(/^\s*(\d+) requests in /m),
    requestsPerSecond: number(/^Requests\/sec:\s+([\d.]+)/m),
    p50Ms: wrkLatencyMs(stdout, 50),
    p99Ms: wrkLatencyMs(stdout, 99),
    /** Responses outside 2xx: a run with any of these did not measure the route it meant to. */
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0),
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
  };
}

import { join } from "node:path";
import { buildBinary, startAtrium } from "../lib/atrium.ts";
import { chooseLoadGenerator, type LoadGenerator, type LoadResult, type LoadSettings } from "../lib/load.ts";
import { SERVER_CPU, onCpu, pinning, startServer, type RunningServer } from "../lib/processes.ts";
import { cpuSeconds, interferenceMeter } from "../lib/cpu.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { median } from "../lib/stats.ts";

const SETTINGS: LoadSettings = { connections: 50, durationSeconds: 5 };
/** Lets each server's JIT settle before anything is recorded. */
const WARMUP: LoadSettings = { connections: 50, durationSeconds: 2 };
const ROUNDS = 5;
const TARGET_RATIO = 0.75;
/**
 * Below this, the bare server was waiting for requests: the generator was the limit, and a ratio
 * against an unsaturated baseline flatters Atrium. Checked like a target so that it cannot go unseen.
 */
const SATURATED_CPU_PERCENT = 90;

export interface Side {
  name: string;
  server: RunningServer;
  url: string;
}

/** What every run shares: the generator, the request headers and the servers that stay up throughout. */
export interface Bench {
  generator: LoadGenerator;
  headers: Record<string, string>;
  sides: Side[];
}

export interface Run extends LoadResult {
  /** How busy the server's core was: near 100 % means the server, not the generator, was the limit. */
  serverCpuPercent: number;
  /** CPU that other processes on the machine used during the run, as a share of all CPUs. */
  otherCpuPercent: number;
}

export async function startBareServer(body: "health" | "small"): Promise<RunningServer> {
  return startServer(onCpu(SERVER_CPU, [process.execPath, join(import.meta.dir, "..", "workers", "bare-server.ts"), body]), {});
}

/** A run that got errors measured something other than the route, so it must not become a figure. */
export async function preflight(side: Side, headers: Record<string, string>): Promise<void> {
  const response = await fetch(side.url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${side.name} answered ${response.status} to ${side.url}`);
}

export async function loadOnce(bench: Bench, side: Side, settings: LoadSettings): Promise<Run> {
  const others = interferenceMeter(bench.sides.map(({ server }) => server.pid));
  const cpuBefore = cpuSeconds(side.server.pid);
  const started = performance.now();
  const result = await bench.generator.run(side.url, bench.headers, settings);
  const wallSeconds = (performance.now() - started) / 1000;
  const serverCpuPercent = ((cpuSeconds(side.server.pid) - cpuBefore) / wallSeconds) * 100;
  if (result.non2xx > 0) throw new Error(`${side.name} answered ${result.non2xx} requests with a non-2xx status`);
  return { ...result, serverCpuPercent, otherCpuPercent: others.read() };
}

export function best(runs: Run[]): Run {
  return runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
}

function sideFigures(label: string, run: Run): Figure[] {
  return [
    { label, value: run.requestsPerSecond, unit: "req/s" },
    { label: `${label} p50`, value: run.p50Ms, unit: "ms" },
    { label: `${label} p99`, value: run.p99Ms, unit: "ms" },
  ];
}

/** Alternates the sides round by round, so that a slow patch of the machine hits both. */
async function alternateRounds(bench: Bench, log: (line: string) => void): Promise<Run[][]> {
  const runs: Run[][] = bench.sides.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [index, side] of bench.sides.entries()) {
      const run = await loadOnce(bench, side, SETTINGS);
      runs[index]!.push(run);
      log(
        `  round ${round}/${ROUNDS} ${side.name}: ${Math.round(run.requestsPerSecond)} req/s, ` +
          `server CPU ${run.serverCpuPercent.toFixed(0)} %, other processes ${run.otherCpuPercent.toFixed(0)} %`,
      );
    }
  }
  return runs;
}

/** Elysia with a trivial guard, compiled like Atrium: the floor of the fixed stack. */
async function startElysiaFloor(token: string): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  const built = await buildBinary([join(import.meta.dir, "..", "workers", "elysia-floor.ts")]);
  try {
    const server = await startServer(onCpu(SERVER_CPU, [built.path, token]), {});
    return {
      server,
      stop: async () => {
        await server.stop();
        built.remove();
      },
    };
  } catch (error) {
    built.remove();
    throw error;
  }
}

/**
 * Authenticated GET /v1/health on the compiled binary against three baselines, with the same load
 * generator, settings, request headers and CPU placement: bare Bun.serve sending the same document
 * (the target is judged against this one), bare Bun.serve sending a tiny JSON answer, and Elysia with
 * a trivial guard sending the same document, which separates what the framework costs from what
 * Atrium adds. Each side keeps its best round: outside interference can only lower throughput, so the
 * best round is the closest to what the server can do.
 */
export async function measureHealthThroughput(binary: string, log: (line: string) => void): Promise<MeasurementResult> {
  const generator = chooseLoadGenerator(log);
  const stops: Array<() => Promise<void>> = [];
  try {
    const atrium = await startAtrium(binary);
    stops.push(() => atrium.stop());
    const floor = await startElysiaFloor(atrium.token);
    stops.push(() => floor.stop());
    const sameDocument = await startBareServer("health");
    stops.push(() => sameDocument.stop());
    const small = await startBareServer("small");
    stops.push(() => small.stop());
    const bench: Bench = {
      generator,
      // Every side gets the same header, so every side receives byte-identical requests.
      headers: { authorization: `Bearer ${atrium.token}` },
      sides: [
        { name: "Atrium", server: atrium.server, url: `${atrium.server.url}/v1/health` },
        { name: "Elysia floor, same document", server: floor.server, url: `${floor.server.url}/v1/health` },
        { name: "bare Bun.serve, same document", server: sameDocument, url: `${sameDocument.url}/v1/health` },
        { name: "bare Bun.serve, tiny JSON", server: small, url: `${small.url}/v1/health` },
      ],
    };
    for (const side of bench.sides) await preflight(side, bench.headers);
    for (const side of bench.sides) await loadOnce(bench, side, WARMUP);
    const [atriumRuns, floorRuns, sameRuns, smallRuns] = (await alternateRounds(bench, log)) as [Run[], Run[], Run[], Run[]];
    const [atriumBest, floorBest, sameBest, smallBest] = [atriumRuns, floorRuns, sameRuns, smallRuns].map(best) as [Run, Run, Run, Run];
    const medianRate = (runs: Run[]) => median(runs.map((run) => run.requestsPerSecond));
    const ratios = (label: string, runs: Run[], bestRun: Run, target?: Figure["target"]): Figure[] => [
      { label: `ratio Atrium / ${label}`, value: atriumBest.requestsPerSecond / bestRun.requestsPerSecond, unit: "ratio", target },
      // Shown beside the ratio of best rounds so that a lucky round on one side cannot hide.
      { label: `ratio of median rounds, ${label}`, value: medianRate(atriumRuns) / medianRate(runs), unit: "ratio" },
    ];
    return {
      method:
        `${generator.name}, ${SETTINGS.connections} keep-alive connections, ${SETTINGS.durationSeconds} s per run, ` +
        `${ROUNDS} alternating rounds after a ${WARMUP.durationSeconds} s warm-up, best round per side; ${pinning}. ` +
        "The same-document baselines answer with a health-shaped document of the same size, built per request.",
      figures: [
        ...sideFigures("Atrium", atriumBest),
        { label: "Atrium server CPU", value: atriumBest.serverCpuPercent, unit: "%" },
        ...sideFigures("Elysia floor, same document", floorBest),
        ...sideFigures("bare, same document", sameBest),
        ...sideFigures("bare, tiny JSON", smallBest),
        {
          label: "bare server CPU (saturated?)",
          value: Math.min(sameBest.serverCpuPercent, smallBest.serverCpuPercent),
          unit: "%",
          target: { comparison: ">=", value: SATURATED_CPU_PERCENT },
        },
        ...ratios("bare, same document", sameRuns, sameBest, { comparison: ">=", value: TARGET_RATIO }),
        ...ratios("bare, tiny JSON", smallRuns, smallBest),
        ...ratios("Elysia floor", floorRuns, floorBest),
        {
          label: "ratio Elysia floor / bare, same document",
          value: floorBest.requestsPerSecond / sameBest.requestsPerSecond,
          unit: "ratio",
        },
      ],
      details: {
        generator: generator.name,
        settings: SETTINGS,
        warmup: WARMUP,
        rounds: ROUNDS,
        selection: "best round per side (ratio of medians shown too)",
        pinning,
        runs: { atrium: atriumRuns, elysiaFloor: floorRuns, bareSameDocument: sameRuns, bareTinyJson: smallRuns },
      },
    };
  } finally {
    await Promise.all(stops.map((stop) => stop()));
  }
}

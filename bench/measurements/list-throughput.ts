import { startAtrium } from "../lib/atrium.ts";
import { chooseLoadGenerator, type LoadSettings } from "../lib/load.ts";
import { pinning } from "../lib/processes.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { best, loadOnce, preflight, startBareServer, type Bench, type Run } from "./health-throughput.ts";

const SETTINGS: LoadSettings = { connections: 20, durationSeconds: 4 };
const WARMUP: LoadSettings = { connections: 20, durationSeconds: 1 };
const ROUNDS = 3;
/** Issue 13: every guarded read at least half of what bare Bun.serve answers, on an empty store. */
const TARGET_RATIO = 0.5;
/**
 * With a query string too: a client pages with `?limit=`, and parsing and validating the query once
 * cost more than the read itself.
 */
const ROUTES = ["/v1/health", "/v1/projects", "/v1/sessions", "/v1/harnesses", "/v1/sessions?limit=1", "/v1/projects?limit=1"];

/**
 * The guarded reads a client polls, on the compiled binary with an empty store, against bare
 * Bun.serve answering a tiny JSON document: same generator, settings, headers and CPU placement;
 * rounds alternate between the sides, and each side keeps its best round.
 */
export async function measureListThroughput(binary: string, log: (line: string) => void): Promise<MeasurementResult> {
  const generator = chooseLoadGenerator(log);
  const atrium = await startAtrium(binary);
  const bare = await startBareServer("small");
  try {
    const bench: Bench = {
      generator,
      headers: { authorization: `Bearer ${atrium.token}` },
      sides: [
        ...ROUTES.map((route) => ({ name: `Atrium ${route}`, server: atrium.server, url: `${atrium.server.url}${route}` })),
        { name: "bare Bun.serve", server: bare, url: `${bare.url}/v1/health` },
      ],
    };
    for (const side of bench.sides) await preflight(side, bench.headers);
    for (const side of bench.sides) await loadOnce(bench, side, WARMUP);
    const runs: Run[][] = bench.sides.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [index, side] of bench.sides.entries()) {
        const run = await loadOnce(bench, side, SETTINGS);
        runs[index]!.push(run);
        log(`  round ${round}/${ROUNDS} ${side.name}: ${Math.round(run.requestsPerSecond)} req/s`);
      }
    }
    const bests = runs.map(best);
    const bareBest = bests.at(-1)!;
    const figures: Figure[] = [{ label: "bare Bun.serve, tiny JSON", value: bareBest.requestsPerSecond, unit: "req/s" }];
    for (const [index, route] of ROUTES.entries()) {
      const run = bests[index]!;
      figures.push({ label: `${route}`, value: run.requestsPerSecond, unit: "req/s" });
      figures.push({ label: `${route} p50`, value: run.p50Ms, unit: "ms" });
      figures.push({
        label: `ratio ${route} / bare`,
        value: run.requestsPerSecond / bareBest.requestsPerSecond,
        unit: "ratio",
        target: { comparison: ">=", value: TARGET_RATIO },
      });
    }
    return {
      method:
        `${generator.name}, ${SETTINGS.connections} keep-alive connections, ${SETTINGS.durationSeconds} s per run, ${ROUNDS} alternating rounds ` +
        `after a ${WARMUP.durationSeconds} s warm-up, best round per side, empty store; ${pinning}.`,
      figures,
      details: {
        generator: generator.name,
        settings: SETTINGS,
        rounds: ROUNDS,
        runs: Object.fromEntries(bench.sides.map((side, index) => [side.name, runs[index]])),
      },
    };
  } finally {
    await Promise.all([atrium.stop(), bare.stop()]);
  }
}

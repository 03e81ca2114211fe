/**
 * Guarded reads under load against bare Bun.serve: authenticated GET /v1/health (`health`), and the
 * reads a client polls on an empty store (`lists`). Same generator, settings, request headers and
 * CPU placement on every side; every side stays up for the whole measurement.
 */
import { join } from "node:path";
import { buildBinary, timedGet } from "../lib/atrium.ts";
import { cpuSeconds, interferenceMeter } from "../lib/cpu.ts";
import { type LoadSettings, wrk } from "../lib/load.ts";
import { measurement, type Bench } from "../lib/measurement.ts";
import { SERVER_CPU, launch, onCpu, type Launched } from "../lib/processes.ts";
import { atLeast, type Figure } from "../lib/report.ts";
import { medianOf, ratio } from "../lib/stats.ts";

/** Below this, the bare server was waiting for requests: the generator was the limit, and the ratio flatters Atrium. */
const SATURATED_CPU_PERCENT = 90;

type Side = { server: Launched; url: string };
/** `pids`: every server up meanwhile, whose CPU is not other processes'. */
type Load = { headers: Record<string, string>; settings: LoadSettings; pids: number[] };

/**
 * wrk on one side, with how busy the server's core was (near 100 %: the server, not the generator, was the
 * limit); a run with any refusal measured something other than the route, so it must not become a figure.
 */
async function loadOnce(load: Load, side: Side) {
  const others = interferenceMeter(load.pids);
  const cpuBefore = cpuSeconds(side.server.pid);
  const started = performance.now();
  const result = await wrk(side.url, load.headers, load.settings);
  const serverCpuPercent = ((cpuSeconds(side.server.pid) - cpuBefore) / ((performance.now() - started) / 1000)) * 100;
  if (result.non2xx > 0) throw new Error(`${side.url} answered ${result.non2xx} requests with a non-2xx status`);
  return { ...result, serverCpuPercent, otherCpuPercent: others.read() };
}

/** Every side answers 200 to the same request before any load: a 401 costs less than a 200 and would flatter the ratio. */
async function preflight(load: Load, sides: Side[]): Promise<void> {
  for (const { url } of sides) await timedGet(url, load.headers, "");
}

/** bench/workers/bare-server.ts: `health` answers a document like Atrium's health report, `small` a tiny JSON. */
async function bareServer(bench: Bench, body: "health" | "small"): Promise<Launched> {
  const server = await launch({ command: onCpu(SERVER_CPU, [process.execPath, join(import.meta.dir, "..", "workers", "bare-server.ts"), body]) });
  bench.defer(server.stop);
  return server;
}

type Run = Awaited<ReturnType<typeof loadOnce>>;

const sideFigures = (label: string, runs: Run[]): Figure[] => [
  { label: `${label}, median round`, value: rate(runs), unit: "req/s" },
  { label: `${label} p50`, value: medianOf(runs, (run) => run.p50Ms), unit: "ms" },
];

const rate = (runs: Run[]) => medianOf(runs, (run) => run.requestsPerSecond);
const rateRatio = (runs: Run[], baseline: Run[]) => ratio(rate(runs), rate(baseline));

export const healthThroughput = measurement({
  key: "health",
  title: "GET /v1/health throughput",
  seed: {
    what:
      "the compiled binary on a fresh data dir; bare Bun.serve answering a health-shaped document of the same size built per request, and " +
      "a tiny JSON; Elysia with a one-line guard answering the same document, compiled like Atrium (the floor of the fixed stack). The same " +
      "Authorization header to every side, so they receive byte-identical requests.",
    async run(bench) {
      const atrium = await bench.atrium();
      const built = await buildBinary([join(import.meta.dir, "..", "workers", "elysia-floor.ts")]);
      bench.defer(built.remove);
      const floor = await launch({ command: onCpu(SERVER_CPU, [built.path, atrium.token]) });
      bench.defer(floor.stop);
      const [same, tiny] = [await bareServer(bench, "health"), await bareServer(bench, "small")];
      const side = (server: Launched): Side => ({ server, url: `${server.url}/v1/health` });
      const sides = { atrium: side(atrium), same: side(same), tiny: side(tiny), floor: side(floor) };
      const load: Load = { headers: atrium.headers, settings: { connections: 50, durationSeconds: 5 }, pids: [atrium.pid, floor.pid, same.pid, tiny.pid] };
      await preflight(load, Object.values(sides));
      return { ...load, ...sides };
    },
  },
  action: { what: "wrk -t1 -c50 for 5 s on Atrium's /v1/health.", run: (world) => loadOnce(world, world.atrium) },
  baseline: {
    what: "the same load on bare Bun.serve with the same document (the target's), with a tiny JSON, and on the Elysia floor, in turn.",
    run: async (world) => ({ same: await loadOnce(world, world.same), tiny: await loadOnce(world, world.tiny), floor: await loadOnce(world, world.floor) }),
  },
  rounds: { warmup: 1, measured: 5 },
  figures({ action, baseline }) {
    const [same, tiny, floor] = [baseline.map((b) => b.same), baseline.map((b) => b.tiny), baseline.map((b) => b.floor)];
    const busy = (runs: Run[]) => medianOf(runs, (run) => run.serverCpuPercent);
    return [
      ...sideFigures("Atrium", action),
      { label: "Atrium p99", value: medianOf(action, (run) => run.p99Ms), unit: "ms" },
      ...sideFigures("Elysia floor, same document", floor),
      ...sideFigures("bare, same document", same),
      ...sideFigures("bare, tiny JSON", tiny),
      { label: "bare server CPU, median round (saturated?)", value: Math.min(busy(same), busy(tiny)), unit: "%", target: atLeast(SATURATED_CPU_PERCENT) },
      { label: "ratio Atrium / bare, same document", value: rateRatio(action, same), unit: "ratio", target: atLeast(0.75) },
      { label: "ratio Atrium / bare, tiny JSON", value: rateRatio(action, tiny), unit: "ratio" },
      { label: "ratio Atrium / Elysia floor", value: rateRatio(action, floor), unit: "ratio" },
      { label: "ratio Elysia floor / bare, same document", value: rateRatio(floor, same), unit: "ratio" },
    ];
  },
});

/** With a query string too: a client pages with `?limit=`, and parsing and validating the query once cost more than the read. */
const ROUTES = ["/v1/health", "/v1/projects", "/v1/sessions", "/v1/harnesses", "/v1/sessions?limit=1", "/v1/projects?limit=1"];

export const listThroughput = measurement({
  key: "lists",
  title: "Guarded reads on an empty store vs bare Bun.serve",
  seed: {
    what: "the compiled binary on a fresh data dir (an empty store), and bare Bun.serve answering a tiny JSON.",
    async run(bench) {
      const atrium = await bench.atrium();
      const bare = await bareServer(bench, "small");
      const world = {
        headers: atrium.headers,
        settings: { connections: 20, durationSeconds: 4 },
        pids: [atrium.pid, bare.pid],
        atrium,
        bare: { server: bare, url: `${bare.url}/v1/health` },
      };
      await preflight(world, [...ROUTES.map((route) => ({ server: atrium, url: atrium.url + route })), world.bare]);
      return world;
    },
  },
  action: {
    what: `wrk -t1 -c20 for 4 s on each of ${ROUTES.join(", ")} in turn, with the admin token.`,
    async run(world) {
      const runs: Record<string, Run> = {};
      for (const route of ROUTES) runs[route] = await loadOnce(world, { server: world.atrium, url: world.atrium.url + route });
      return runs;
    },
  },
  baseline: { what: "the same load on bare Bun.serve's tiny JSON.", run: (world) => loadOnce(world, world.bare) },
  rounds: { warmup: 1, measured: 3 },
  figures: ({ action, baseline }) => [
    ...sideFigures("bare Bun.serve, tiny JSON", baseline),
    ...ROUTES.flatMap((route): Figure[] => {
      const runs = action.map((round) => round[route]!);
      return [...sideFigures(route, runs), { label: `ratio ${route} / bare`, value: rateRatio(runs, baseline), unit: "ratio", target: atLeast(0.5) }];
    }),
  ],
});

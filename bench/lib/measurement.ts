/**
 * The one shape of a measurement, which bench/run.ts executes: a seed made once, then rounds of the
 * action and its baseline in turn (warm-up rounds first, not kept), then figures taken from the
 * measured rounds. Each part says in words what it does, and the report's method line is those words,
 * so what is compared against what reads off the declaration.
 */
import { rmSync } from "node:fs";
import { startAtrium, type Atrium, type AtriumOptions } from "./atrium.ts";
import { launchBenchBrowser, type BenchBrowser } from "./browser.ts";
import { pinning, tempDir, withTimeout } from "./processes.ts";
import type { Figure, MeasurementResult } from "./report.ts";

/** What a seed gets: the binary under test, a progress line, and where to leave what must be stopped. */
export interface Bench {
  binary: string;
  log(line: string): void;
  /** Runs `stop` after the last round, even when a round throws; the last one deferred runs first. */
  defer(stop: () => unknown): void;
  /** A temp dir, removed after the last round. */
  tempDir(purpose: string): string;
  /** The compiled server (bench/lib/atrium.ts), stopped after the last round. */
  atrium(options?: AtriumOptions): Promise<Atrium>;
  /** Chromium (bench/lib/browser.ts), closed after the last round. */
  browser(): Promise<BenchBrowser>;
}

export interface Step<World, Sample> {
  what: string;
  run(world: World, round: number): Promise<Sample>;
}

export interface Measurement<World, Action, Baseline = Action> {
  key: string;
  title: string;
  seed: { what: string; run(bench: Bench): Promise<World> };
  action: Step<World, Action>;
  /**
   * What the action's figures are set against. With `run`, a step of its own that takes turns with
   * the action round by round, so that a slow patch of the machine hits both; without, the action
   * measures it among its own requests (a health read beside each list read, an idle page after each reply).
   */
  baseline: { what: string; run?(world: World, round: number): Promise<Baseline> };
  rounds: { warmup: number; measured: number };
  /** Figures from the measured rounds. Targets are judged on medians, never on a best round. */
  figures(rounds: { action: Action[]; baseline: Baseline[] }, world: World): Figure[];
}

export interface Runnable {
  key: string;
  title: string;
  run(binary: string, log: (line: string) => void): Promise<MeasurementResult>;
}

/** A measurement still running after this has hung (a server stalled): it fails, and what it started is stopped. */
const TIME_LIMIT_MS = 60 * 60_000;

/** BENCH_QUICK=1: one measured round and no warm-up, to try a measurement out; its figures say so and prove nothing. */
export const QUICK = process.env.BENCH_QUICK === "1";
const roundsOf = (declared: { warmup: number; measured: number }) => (QUICK ? { warmup: 0, measured: 1 } : declared);

function method<W, A, B>(measurement: Measurement<W, A, B>): string {
  const { warmup, measured } = roundsOf(measurement.rounds);
  const rounds = `${measured} measured round${measured === 1 ? "" : "s"}${warmup > 0 ? ` after ${warmup} unmeasured` : ""}`;
  const turns = measurement.baseline.run ? ", action and baseline in turn" : "";
  const { seed, action, baseline } = measurement;
  return `Seed: ${seed.what} Action: ${action.what} Baseline: ${baseline.what} Rounds: ${rounds}${turns}${QUICK ? " (BENCH_QUICK)" : ""}; ${pinning}.`;
}

/** Declares a measurement; run.ts only sees its key, title and how to run it. */
export function measurement<W, A, B = A>(declared: Measurement<W, A, B>): Runnable {
  return {
    key: declared.key,
    title: declared.title,
    async run(binary, log) {
      const stops: (() => unknown)[] = [];
      try {
        const defer = (stop: () => unknown) => stops.push(stop);
        const dir = (purpose: string) => {
          const path = tempDir(purpose);
          defer(() => rmSync(path, { recursive: true, force: true }));
          return path;
        };
        const rounds: { action: A[]; baseline: B[] } = { action: [], baseline: [] };
        const measure = async () => {
          const deferred = async <T>(started: Promise<T>, stop: (it: T) => unknown) => {
            const it = await started;
            defer(() => stop(it));
            return it;
          };
          const bench: Bench = {
            binary,
            log,
            defer,
            tempDir: dir,
            atrium: (options) => deferred(startAtrium(binary, options), (atrium) => atrium.stop()),
            browser: () => deferred(launchBenchBrowser(), (browser) => browser.close()),
          };
          const world = await declared.seed.run(bench);
          const { warmup, measured } = roundsOf(declared.rounds);
          for (let round = 0; round < warmup + measured; round++) {
            const action = await declared.action.run(world, round);
            const baseline = declared.baseline.run ? await declared.baseline.run(world, round) : undefined;
            if (round < warmup) continue;
            rounds.action.push(action);
            if (baseline !== undefined) rounds.baseline.push(baseline);
            if (warmup + measured > 1) log(`  round ${round - warmup + 1} of ${measured} done`);
          }
          return declared.figures(rounds, world);
        };
        const figures = await withTimeout(measure(), TIME_LIMIT_MS, `it ran past ${TIME_LIMIT_MS / 60_000} minutes`);
        return { method: method(declared), figures, details: rounds };
      } finally {
        for (const stop of stops.reverse()) {
          try {
            await stop();
          } catch (error) {
            log(`  could not stop or remove something: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }
    },
  };
}

import { startAtrium } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { freePort, rssBytes } from "../lib/processes.ts";
import { median, percentile } from "../lib/stats.ts";

/** Long enough for start-up garbage to be collected and the server to sit idle. */
const RSS_SETTLE_MS = 2_000;

interface Start {
  /** Spawn to the first 200; NaN when it never came within 5 s (the start failed, and the median with it). */
  readyMs: number;
  rssMiB: number;
  error?: string;
}

export const coldStart = measurement({
  key: "cold",
  title: "Cold start and idle memory",
  seed: { what: "nothing: each start has a fresh data dir.", run: async (bench) => bench.binary },
  action: {
    what:
      "the compiled binary started unpinned, as a user starts it, on a fresh data dir (so it creates the database, runs the " +
      "migrations and writes the token), timed from spawn to the first 200 of GET /v1/health (no token: the loopback exception) " +
      `polled back to back; VmRSS ${RSS_SETTLE_MS / 1000} s later. The executable is in the page cache: a process cold start.`,
    async run(binary): Promise<Start> {
      try {
        const atrium = await startAtrium(binary, { port: freePort(), unpinned: true, pollHealth: true });
        try {
          await Bun.sleep(RSS_SETTLE_MS);
          return { readyMs: atrium.readyMs, rssMiB: rssBytes(atrium.pid) / 2 ** 20 };
        } finally {
          await atrium.stop();
        }
      } catch (error) {
        return { readyMs: Number.NaN, rssMiB: Number.NaN, error: error instanceof Error ? error.message : String(error) };
      }
    },
  },
  baseline: { what: "none: the targets are absolute (issue 13: the median had crept to 123–160 ms)." },
  rounds: { warmup: 1, measured: 20 },
  figures: ({ action }) => [
    { label: "cold start median", value: median(action.map((start) => start.readyMs)), unit: "ms", target: { comparison: "<", value: 50, gate: true } },
    {
      label: "cold start p95",
      value: percentile(
        action.map((start) => start.readyMs),
        95,
      ),
      unit: "ms",
      target: { comparison: "<", value: 100 },
    },
    { label: "starts that never answered", value: action.filter((start) => !Number.isFinite(start.readyMs)).length, unit: "count" },
    { label: "idle RSS, median", value: median(action.map((start) => start.rssMiB)), unit: "MiB", target: { comparison: "<", value: 60 } },
  ],
});

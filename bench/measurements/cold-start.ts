import { join } from "node:path";
import { atriumCommand, buildBinary, startAtrium } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { freePort, launch, rssBytes } from "../lib/processes.ts";
import { below } from "../lib/report.ts";
import { median, medianOf, percentile, ratio } from "../lib/stats.ts";

/** Long enough for start-up garbage to be collected and the server to sit idle. */
const RSS_SETTLE_MS = 2_000;

export const coldStart = measurement({
  key: "cold",
  title: "Cold start and idle memory",
  seed: {
    what: "the floor's executable, bench/fixtures/bare-server.ts compiled with Atrium's flags; each start of Atrium has a fresh data dir.",
    async run(bench) {
      const floor = await buildBinary([join(import.meta.dir, "..", "fixtures", "bare-server.ts")]);
      bench.defer(floor.remove);
      return { atrium: bench.binary, floor: floor.path };
    },
  },
  action: {
    what:
      "the compiled binary started unpinned, as a user starts it, on a fresh data dir (so it creates the database from the build's migrated image, dates its " +
      "migrations and writes the token), timed from spawn to the first 200 of GET /v1/health (no token: the loopback exception) " +
      `polled back to back; VmRSS ${RSS_SETTLE_MS / 1000} s later. The executable is in the page cache: a process cold start.`,
    // A start that never answers within 5 s is NaN, which makes the median n/a and the gate fail.
    async run({ atrium: binary }): Promise<{ readyMs: number; rssMiB: number; error?: string }> {
      try {
        const atrium = await startAtrium(binary, { unpinned: true, pollHealth: true });
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
  baseline: {
    what:
      "the floor, started the same way in turn with each start of Atrium: a compiled Bun executable that only answers /v1/health, " +
      "so the gate holds on a slower machine as on a faster one (issue 13: the median had crept to 123–160 ms on a machine where 50 ms was met).",
    async run({ floor }): Promise<number> {
      const port = freePort();
      const started = await launch({ command: atriumCommand(floor, port), poll: { url: `http://127.0.0.1:${port}/v1/health` }, timeoutMs: 5_000 });
      await started.stop();
      return started.readyMs;
    },
  },
  rounds: { warmup: 1, measured: 20 },
  figures({ action, baseline }) {
    const starts = action.map((start) => start.readyMs);
    return [
      { label: "cold start median", value: median(starts), unit: "ms" },
      { label: "the floor's start median", value: median(baseline), unit: "ms" },
      // What Atrium adds to a bare compiled Bun server (its modules, its database created and migrated, its token) at most.
      { label: "cold start median / the floor's", value: ratio(median(starts), median(baseline)), unit: "ratio", target: below(3, true) },
      { label: "cold start p95", value: percentile(starts, 95), unit: "ms" },
      { label: "starts that never answered", value: starts.filter((ms) => !Number.isFinite(ms)).length, unit: "count" },
      { label: "idle RSS, median", value: medianOf(action, (start) => start.rssMiB), unit: "MiB", target: below(60) },
    ];
  },
});

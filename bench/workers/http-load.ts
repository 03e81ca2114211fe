/**
 * Fallback HTTP load generator, used only when wrk is not installed: `connections` loops, each
 * sending its next request as soon as the previous answer is read, over keep-alive connections.
 */
import { readWorkerConfig, finishWorker } from "../lib/worker-io.ts";
import { summarize } from "../lib/stats.ts";
import type { LoadResult, LoadSettings } from "../lib/load.ts";

export interface HttpLoadConfig extends LoadSettings {
  url: string;
  headers: Record<string, string>;
}

/** Bounds memory for the latency samples even on a machine far faster than expected. */
const MAX_REQUESTS = 5_000_000;

const config = readWorkerConfig<HttpLoadConfig>();
const latencies: number[] = [];
let non2xx = 0;
let socketErrors = 0;

async function connectionLoop(deadline: number): Promise<void> {
  while (performance.now() < deadline && latencies.length < MAX_REQUESTS) {
    const sent = performance.now();
    try {
      const response = await fetch(config.url, { headers: config.headers });
      await response.arrayBuffer();
      if (response.status < 200 || response.status > 299) non2xx++;
      latencies.push(performance.now() - sent);
    } catch {
      socketErrors++;
    }
  }
}

const started = performance.now();
const deadline = started + config.durationSeconds * 1000;
await Promise.all(Array.from({ length: config.connections }, () => connectionLoop(deadline)));
const elapsedSeconds = (performance.now() - started) / 1000;
const latency = summarize(latencies);
await finishWorker({
  requests: latency.count,
  requestsPerSecond: latency.count / elapsedSeconds,
  p50Ms: latency.p50,
  p99Ms: latency.p99,
  non2xx,
  socketErrors,
} satisfies LoadResult);

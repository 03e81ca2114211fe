import { startAtrium } from "../lib/atrium.ts";
import { LOAD_CPU, pinning, runWorker } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import type { FanoutConfig, FanoutResult } from "../workers/sse-fanout.ts";

const CLIENTS = 100;
const EVENTS = 500;
const WARMUP_EVENTS = 50;
/** Far apart enough that each event is delivered before the next is sent: this measures latency, not a queue. */
const INTERVAL_MS = 5;
const TARGET_P99_MS = 5;

/**
 * The compiled server with 100 live SSE clients; one writer appends 500 events through PUT
 * /v1/sync/bench, 5 ms apart, after 50 that warm up both sides and are not counted. Writer and
 * clients share a process (and so a clock) apart from the server. Delivery latency counts from just
 * before the PUT is sent to the moment a client has parsed the frame, so it includes the HTTP
 * request, the SQLite commit and the fan-out to all clients.
 */
export async function measureEventDelivery(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary);
  try {
    const config: FanoutConfig = {
      baseUrl: atrium.server.url,
      token: atrium.token,
      clients: CLIENTS,
      warmupEvents: WARMUP_EVENTS,
      events: EVENTS,
      intervalMs: INTERVAL_MS,
      connectTimeoutMs: 15_000,
      drainTimeoutMs: 5_000,
    };
    // Generous, but finite: a worker that hangs is killed rather than waited for.
    const budgetMs = config.connectTimeoutMs + (WARMUP_EVENTS + EVENTS) * INTERVAL_MS * 4 + config.drainTimeoutMs * 2 + 10_000;
    const result = await runWorker<FanoutResult>("sse-fanout.ts", config, LOAD_CPU, budgetMs);
    return {
      method:
        `${CLIENTS} SSE clients (fetch + stream reader) and 1 writer in one Bun process, ${EVENTS} appends ` +
        `${INTERVAL_MS} ms apart after ${WARMUP_EVENTS} unmeasured ones, latency = client parsed frame - writer ` +
        `about to send the PUT; ${pinning}.`,
      figures: [
        { label: "delivery p50", value: result.deliveryMs.p50, unit: "ms" },
        { label: "delivery p99", value: result.deliveryMs.p99, unit: "ms", target: { comparison: "<", value: TARGET_P99_MS } },
        { label: "delivery max", value: result.deliveryMs.max, unit: "ms" },
        { label: "first client per event p99", value: result.firstClientMs.p99, unit: "ms" },
        { label: "append round trip p50", value: result.appendMs.p50, unit: "ms" },
        { label: "append round trip p99", value: result.appendMs.p99, unit: "ms" },
        {
          label: `clients with all ${EVENTS} events in order`,
          value: result.failedAppends > 0 ? 0 : result.clientsInOrder,
          unit: "clients",
          target: { comparison: ">=", value: CLIENTS },
        },
      ],
      details: { clients: CLIENTS, warmupEvents: WARMUP_EVENTS, events: EVENTS, intervalMs: INTERVAL_MS, pinning, ...result },
    };
  } finally {
    await atrium.stop();
  }
}

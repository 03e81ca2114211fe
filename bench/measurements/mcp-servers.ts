import { join } from "node:path";
import { startAtrium, type RunningAtrium } from "../lib/atrium.ts";
import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";

const SERVERS = 200;
/** Of the 200, these are stdio servers whose probes stay running (slow to answer); the rest HTTP servers that never answer. */
const SLOW_STDIO_SERVERS = 50;
const WARMUP_REQUESTS = 20;
const REQUESTS = 200;
const TARGET_LIST_P50_MS = 5;
const PARALLEL_PROBES = 50;
/** The i-th of the 50 answers initialize after 500 + 20·i ms: the slowest after 1,480 ms. */
const delayOf = (index: number) => 500 + 20 * index;
const TARGET_PARALLEL_MARGIN_MS = 1000;

const FIXTURE = join(import.meta.dir, "..", "fixtures", "minimal-mcp-server.ts");
const stdioServer = (name: string, delayMs: number, enabled = true) => ({
  name,
  transport: "stdio",
  command: process.execPath,
  args: [FIXTURE, "--delay", String(delayMs)],
  enabled,
});

function client(atrium: RunningAtrium) {
  const headers = { authorization: `Bearer ${atrium.token}`, "content-type": "application/json" };
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${atrium.server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
}

async function timeList(atrium: RunningAtrium): Promise<{ latency: ReturnType<typeof summarize>; bytes: number }> {
  const headers = { authorization: `Bearer ${atrium.token}` };
  const timings: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARMUP_REQUESTS + REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(`${atrium.server.url}/v1/mcps`, { headers });
    const body = await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET /v1/mcps answered ${response.status}`);
    if (i >= WARMUP_REQUESTS) timings.push(performance.now() - started);
    bytes = body.byteLength;
  }
  return { latency: summarize(timings), bytes };
}

/**
 * Two things, each against a baseline from the same run. The list: GET /v1/mcps with no servers, then
 * with 200 (150 HTTP servers that never answer, 50 stdio servers slow to answer) while their probes
 * run. The probes: the slowest of 50 stdio servers probed alone, then all 50 probed at once.
 */
export async function measureMcpServers(binary: string): Promise<MeasurementResult> {
  const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => undefined) });
  const listing = await startAtrium(binary);
  const probing = await startAtrium(binary);
  try {
    const api = client(listing);
    const empty = await timeList(listing);
    for (let i = 0; i < SERVERS; i++) {
      const body =
        i < SLOW_STDIO_SERVERS ? stdioServer(`slow-${i}`, 60_000) : { name: `remote-${i}`, transport: "http", url: `http://127.0.0.1:${silent.port}/mcp` };
      await api("POST", "/v1/mcps", body);
    }
    const full = await timeList(listing);
    const { servers } = await api<{ servers: Array<{ connectionState: string }> }>("GET", "/v1/mcps");
    const probingWhileListed = servers.filter((server) => server.connectionState === "connecting").length;

    const probe = client(probing);
    const ids: string[] = [];
    for (let i = 0; i < PARALLEL_PROBES; i++) ids.push((await probe<{ id: string }>("POST", "/v1/mcps", stdioServer(`parallel-${i}`, delayOf(i), false))).id);
    const timeProbes = async (which: string[]) => {
      const started = performance.now();
      const probed = await Promise.all(which.map((id) => probe<{ connectionState: string }>("POST", `/v1/mcps/${id}/probe`)));
      if (probed.some((server) => server.connectionState !== "connected")) throw new Error("a probe did not connect");
      return performance.now() - started;
    };
    const slowestAlone = await timeProbes([ids.at(-1)!]);
    const allAtOnce = await timeProbes(ids);
    return {
      method:
        `GET /v1/mcps: ${REQUESTS} sequential requests after ${WARMUP_REQUESTS} unmeasured ones, with no servers and then with ${SERVERS} ` +
        `(${SERVERS - SLOW_STDIO_SERVERS} HTTP servers that never answer, ${SLOW_STDIO_SERVERS} stdio servers that answer after a minute) while their probes run. ` +
        `Probes: ${PARALLEL_PROBES} stdio servers answering after ${delayOf(0)}–${delayOf(PARALLEL_PROBES - 1)} ms, the slowest probed alone, then all at once ` +
        `(POST /v1/mcps/{id}/probe, which answers when the probe ends); ${pinning}.`,
      figures: [
        { label: `list p50, ${SERVERS} servers, probes running`, value: full.latency.p50, unit: "ms", target: { comparison: "<", value: TARGET_LIST_P50_MS } },
        { label: "list p50, no servers (baseline)", value: empty.latency.p50, unit: "ms" },
        { label: "list p50 ratio to baseline", value: full.latency.p50 / empty.latency.p50, unit: "ratio" },
        { label: "list p99, probes running", value: full.latency.p99, unit: "ms" },
        { label: "servers still probing after the list", value: probingWhileListed, unit: "servers" },
        { label: "slowest stdio server probed alone", value: slowestAlone, unit: "ms" },
        { label: `${PARALLEL_PROBES} stdio probes at once`, value: allAtOnce, unit: "ms" },
        {
          label: "at once minus the slowest alone",
          value: allAtOnce - slowestAlone,
          unit: "ms",
          target: { comparison: "<", value: TARGET_PARALLEL_MARGIN_MS },
        },
      ],
      details: { empty, full, probingWhileListed, slowestAlone, allAtOnce, bodyBytes: full.bytes },
    };
  } finally {
    await listing.stop();
    await probing.stop();
    silent.stop(true);
  }
}

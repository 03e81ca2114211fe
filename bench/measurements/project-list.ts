import { startAtrium } from "../lib/atrium.ts";
import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";
import { countAllPages } from "../lib/pages.ts";

const PROJECTS = 1000;
const WARMUP_REQUESTS = 20;
const REQUESTS = 200;
const TARGET_P50_MS = 5;
/** The list is paged (issue 13); the figure is one page of the default size. */
const PAGE = 50;

/**
 * The compiled server with 1,000 projects (scratch projects, each with a folder and a location, made
 * through the API); then 200 sequential GET /v1/projects?limit=50 after 20 unmeasured ones. Latency is
 * from sending the request to having the whole body, read as bytes (the client does not parse it).
 * All the projects are then listed by following the pages' `Link` headers.
 */
export async function measureProjectList(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary);
  const headers = { authorization: `Bearer ${atrium.token}`, "content-type": "application/json" };
  const url = `${atrium.server.url}/v1/projects`;
  const pageUrl = `${url}?limit=${PAGE}`;
  try {
    for (let i = 0; i < PROJECTS; i++) {
      const response = await fetch(url, { method: "POST", headers, body: JSON.stringify({ isScratch: true, name: `Project ${i}` }) });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`creating project ${i} answered ${response.status}`);
    }
    const timings: number[] = [];
    let bytes = 0;
    for (let i = 0; i < WARMUP_REQUESTS + REQUESTS; i++) {
      const started = performance.now();
      const response = await fetch(pageUrl, { headers });
      const body = await response.arrayBuffer();
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET /v1/projects answered ${response.status}`);
      if (i >= WARMUP_REQUESTS) timings.push(elapsed);
      bytes = body.byteLength;
    }
    const listed = await countAllPages(atrium.server.url, `/v1/projects?limit=200`, headers);
    const latency = summarize(timings);
    return {
      method:
        `${PROJECTS} scratch projects made through the API, then ${REQUESTS} sequential GET /v1/projects?limit=${PAGE} after ` +
        `${WARMUP_REQUESTS} unmeasured ones, each timed to the last byte of the body; ${pinning}.`,
      figures: [
        { label: "projects listed, following the pages", value: listed, unit: "projects", target: { comparison: ">=", value: PROJECTS } },
        { label: `page of ${PAGE} p50`, value: latency.p50, unit: "ms", target: { comparison: "<", value: TARGET_P50_MS } },
        { label: "list p99", value: latency.p99, unit: "ms" },
        { label: "body size", value: bytes / 1024, unit: "KiB" },
      ],
      details: { projects: PROJECTS, warmupRequests: WARMUP_REQUESTS, requests: REQUESTS, latency, bodyBytes: bytes },
    };
  } finally {
    await atrium.stop();
  }
}

import { startAtrium } from "../lib/atrium.ts";
import { inParallel, SEED_CONCURRENCY } from "../lib/pool.ts";
import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";
import { countAllPages } from "../lib/pages.ts";

const SESSIONS = 10_000;
const WARMUP_REQUESTS = 50;
const REQUESTS = 1_000;
/** Issue 13: with 10,000 sessions, a page of 50 answers with p50 under 2 ms. */
const TARGET_P50_MS = 2;

/** `word` with the letters whose bit is set in `mask` in capitals: one of its 2^length casings. */
const casingOf = (word: string, mask: number) => [...word].map((letter, index) => (mask & (1 << index) ? letter.toUpperCase() : letter)).join("");

/**
 * The compiled server with 10,000 echo sessions in one scratch project (made through the API), then
 * 1,000 sequential GET /v1/sessions?limit=50 after 50 unmeasured ones, each timed to the last byte.
 * A page further on (from the first page's `Link`) is timed too, and searches (`q`) the server has
 * not kept; all sessions are then listed by following the pages.
 */
export async function measureSessionList(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary);
  const headers = { authorization: `Bearer ${atrium.token}`, "content-type": "application/json" };
  const base = atrium.server.url;
  try {
    const project = (await (await fetch(`${base}/v1/projects`, { method: "POST", headers, body: JSON.stringify({ isScratch: true }) })).json()) as {
      id: string;
    };
    const seedStarted = performance.now();
    await inParallel(SESSIONS, async () => {
      const response = await fetch(`${base}/v1/sessions`, { method: "POST", headers, body: JSON.stringify({ projectId: project.id, harnessId: "echo" }) });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`creating a session answered ${response.status}`);
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const time = async (pathOf: string | ((request: number) => string)) => {
      const timings: number[] = [];
      for (let i = 0; i < WARMUP_REQUESTS + REQUESTS; i++) {
        const path = typeof pathOf === "string" ? pathOf : pathOf(i);
        const started = performance.now();
        const response = await fetch(base + path, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
        if (i >= WARMUP_REQUESTS) timings.push(performance.now() - started);
      }
      return summarize(timings);
    };
    const first = await time("/v1/sessions?limit=50");
    const link = (await fetch(`${base}/v1/sessions?limit=50`, { headers })).headers.get("link") ?? "";
    const nextPath = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    if (!nextPath) throw new Error("the first page of sessions has no Link to the next");
    const second = await time(nextPath);
    // Searches the server has not answered before (it keeps 64 pages): every casing of "session" in turn,
    // each finding every session; and texts no title holds, each a scan of the whole table.
    const finding = await time((request) => `/v1/sessions?limit=50&q=${casingOf("session", request % 2 ** "session".length)}`);
    const findingNone = await time((request) => `/v1/sessions?limit=50&q=nothing-${request}`);
    const listed = await countAllPages(base, "/v1/sessions?limit=200", headers);
    return {
      method:
        `${SESSIONS.toLocaleString("en-US")} sessions made through the API (${SEED_CONCURRENCY} at a time), then ${REQUESTS} sequential ` +
        `GET /v1/sessions?limit=50 after ${WARMUP_REQUESTS} unmeasured ones, timed to the last byte; the same for the second page; ${pinning}.`,
      figures: [
        { label: "sessions listed, following the pages", value: listed, unit: "sessions", target: { comparison: ">=", value: SESSIONS } },
        { label: "first page of 50, p50", value: first.p50, unit: "ms", target: { comparison: "<", value: TARGET_P50_MS } },
        { label: "first page of 50, p99", value: first.p99, unit: "ms" },
        { label: "second page of 50, p50", value: second.p50, unit: "ms", target: { comparison: "<", value: TARGET_P50_MS } },
        { label: "a search finding every session, first page of 50, p50 (not kept)", value: finding.p50, unit: "ms" },
        { label: `a search finding none (all ${SESSIONS.toLocaleString("en-US")} read), p50`, value: findingNone.p50, unit: "ms" },
        { label: "making the sessions", value: seedSeconds, unit: "s" },
      ],
      details: { sessions: SESSIONS, requests: REQUESTS, first, second, finding, findingNone, seedSeconds },
    };
  } finally {
    await atrium.stop();
  }
}

import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";
import { startSessionBench, type DetailView, type SessionBench } from "./session-common.ts";

/** Each turn adds two items: the prompt and the agent's one-chunk reply. */
const TURNS = 5_000;
const ITEMS = TURNS * 2;
const PROMPT_SIZE = 120;
const REPLY_SIZE = 600;
const PAGE = 50;
const WARMUP_ROUNDS = 50;
const ROUNDS = 1_000;
const TARGET_P50_MS = 10;
/** Bounds making the 10,000 items through the server. */
const SEED_TIMEOUT_MS = 180_000;
const SEED_POLL_MS = 250;

/** Prompt `i`: a one-chunk reply of REPLY_SIZE characters, padded to about PROMPT_SIZE characters. */
function promptText(index: number): string {
  return `reply size=${REPLY_SIZE} n=${index} `.padEnd(PROMPT_SIZE, "lorem ipsum ");
}

/**
 * Sends every prompt (the server queues them and runs one turn at a time), then polls until the
 * queue is empty and the newest item, number ITEMS, is complete.
 */
async function seed(bench: SessionBench, sessionId: string): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < TURNS; index++) await bench.prompt(sessionId, promptText(index));
  for (;;) {
    if (performance.now() - started > SEED_TIMEOUT_MS) throw new Error(`${TURNS} turns did not finish within ${SEED_TIMEOUT_MS} ms`);
    const { body } = await bench.api<DetailView>("GET", `/v1/sessions/${sessionId}?limit=1`);
    if (body.session.sidebarState === "error") throw new Error(`the session went into error: ${body.session.status}`);
    const newest = body.conversation.at(-1);
    if (body.promptQueue.length === 0 && newest && !newest.isGenerating && body.nextBefore === String(ITEMS)) break;
    await Bun.sleep(SEED_POLL_MS);
  }
  return performance.now() - started;
}

/** Walks every page back from the newest, checking that together they hold each item once, in turn. */
async function pageCursors(bench: SessionBench, sessionId: string): Promise<string[]> {
  const cursors: string[] = [];
  const seen = new Set<string>();
  let before: string | null = null;
  let items = 0;
  do {
    const query: string = before === null ? `?limit=${PAGE}` : `?limit=${PAGE}&before=${before}`;
    const { body }: { body: DetailView } = await bench.api<DetailView>("GET", `/v1/sessions/${sessionId}${query}`);
    body.conversation.forEach((item, index) => {
      if (seen.has(item.id)) throw new Error(`item ${item.id} came on two pages`);
      seen.add(item.id);
      const expectedRole = index % 2 === 0 ? "user" : "assistant";
      if (item.role !== expectedRole) throw new Error(`page before ${before}: item ${index} is ${item.role}, expected ${expectedRole}`);
    });
    items += body.conversation.length;
    before = body.hasMore ? body.nextBefore : null;
    if (before !== null) cursors.push(before);
  } while (before !== null);
  if (items !== ITEMS) throw new Error(`the pages held ${items} items, not ${ITEMS}`);
  return cursors;
}

/**
 * A session with 10,000 conversation items, made through the server: 5,000 prompts to the
 * streaming agent, each answered with one chunk. Then rounds of GET /v1/sessions/{id}?limit=50 (the
 * newest page), one page further back (before=, cycling through every cursor), and GET /v1/health as
 * the baseline, in rotating order, each timed to the last byte.
 */
export async function measureSessionDetail(binary: string): Promise<MeasurementResult> {
  const bench = await startSessionBench(binary);
  try {
    const { sessionId } = await bench.newSession();
    const seedMs = await seed(bench, sessionId);
    const cursors = await pageCursors(bench, sessionId);
    const get = async (path: string): Promise<{ ms: number; bytes: number }> => {
      const started = performance.now();
      const response = await fetch(`${bench.server.url}${path}`, { headers: bench.headers });
      const body = await response.arrayBuffer();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
      return { ms, bytes: body.byteLength };
    };
    const newest: number[] = [];
    const older: number[] = [];
    const health: number[] = [];
    let newestBytes = 0;
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      // Jumping 37 pages at a time (coprime with the 199 cursors) visits every page, far ones and near.
      const cursor = cursors[(round * 37) % cursors.length]!;
      const requests = [
        { path: `/v1/sessions/${sessionId}?limit=${PAGE}`, into: newest },
        { path: `/v1/sessions/${sessionId}?limit=${PAGE}&before=${cursor}`, into: older },
        { path: "/v1/health", into: health },
      ];
      for (let turn = 0; turn < requests.length; turn++) {
        const { path, into } = requests[(round + turn) % requests.length]!;
        const { ms, bytes } = await get(path);
        if (round < WARMUP_ROUNDS) continue;
        into.push(ms);
        if (into === newest) newestBytes = bytes;
      }
    }
    const newestLatency = summarize(newest);
    const olderLatency = summarize(older);
    const healthLatency = summarize(health);
    return {
      method:
        `${ITEMS.toLocaleString("en-US")} items made through the server (${TURNS.toLocaleString("en-US")} prompts of ~${PROMPT_SIZE} ` +
        `characters, each answered with one ${REPLY_SIZE}-character chunk by bench/workers/streaming-agent.ts); every page walked ` +
        `once to check it; then ${ROUNDS.toLocaleString("en-US")} rounds after ${WARMUP_ROUNDS} unmeasured of GET ` +
        `/v1/sessions/{id}?limit=${PAGE}, the same with before= (cycling through all ${cursors.length} cursors) and GET /v1/health, ` +
        `in rotating order, sequential, each timed to the last byte; ${pinning}.`,
      figures: [
        { label: "conversation items", value: ITEMS, unit: "items", target: { comparison: ">=", value: ITEMS } },
        { label: `time to make them through the server (${TURNS.toLocaleString("en-US")} turns)`, value: Math.round(seedMs / 100) / 10, unit: "s" },
        { label: "newest page p50", value: newestLatency.p50, unit: "ms", target: { comparison: "<", value: TARGET_P50_MS } },
        { label: "newest page p99", value: newestLatency.p99, unit: "ms" },
        { label: "older page (before=) p50", value: olderLatency.p50, unit: "ms", target: { comparison: "<", value: TARGET_P50_MS } },
        { label: "older page p99", value: olderLatency.p99, unit: "ms" },
        { label: "health p50, same rounds (baseline)", value: healthLatency.p50, unit: "ms" },
        { label: "health p99, same rounds", value: healthLatency.p99, unit: "ms" },
        { label: "ratio newest page p50 / health p50", value: newestLatency.p50 / healthLatency.p50, unit: "ratio" },
        { label: "ratio older page p50 / health p50", value: olderLatency.p50 / healthLatency.p50, unit: "ratio" },
        { label: "page body size", value: newestBytes / 1024, unit: "KiB" },
      ],
      details: {
        turns: TURNS,
        items: ITEMS,
        promptSize: PROMPT_SIZE,
        replySize: REPLY_SIZE,
        page: PAGE,
        pages: cursors.length + 1,
        seedMs,
        warmupRounds: WARMUP_ROUNDS,
        rounds: ROUNDS,
        newestLatency,
        olderLatency,
        healthLatency,
        pageBodyBytes: newestBytes,
      },
    };
  } finally {
    await bench.stop();
  }
}

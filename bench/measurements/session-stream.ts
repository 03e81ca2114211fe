import { cpuSeconds } from "../lib/cpu.ts";
import { SERVER_CPU, pinning, runWorker } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { median, summarize } from "../lib/stats.ts";
import { streamChunk, type StreamReport } from "../workers/streaming-agent.ts";
import type { BareClientConfig, BareClientResult } from "../workers/bare-acp-client.ts";
import {
  agentCommand,
  completionOf,
  deltasOf,
  replyItemId,
  startSessionBench,
  wallMs,
  writtenBytes,
  type DetailView,
  type SessionBench,
} from "./session-common.ts";

const CHUNKS = 20_000;
const CHUNK_SIZE = 50;
/** A full-size unmeasured turn on each side first, so that neither is measured with a cold JIT. */
const WARMUP_CHUNKS = CHUNKS;
const ROUNDS = 3;
/** The paced round: about what a fast model streams, so the server's 25 ms delta timer decides. */
const PACED_RATE = 1_000;
const TARGET_AFTER_LAST_CHUNK_MS = 1_000;
/** Bounds one round: the agent's stream plus the server catching up. */
const ROUND_TIMEOUT_MS = 60_000;
/**
 * Storage writes per byte of reply, at any pace (issue 13: rewriting the row on every delta wrote
 * 460 MiB for a 1 MB reply at 1,000 chunks/s). Each byte is now written once to the WAL and once more
 * when the checkpoint copies it into the database file, plus page and event overhead.
 */
const TARGET_WRITE_RATIO = 3;
/** The server's bytes written (wchar, so socket writes too) less what it sent the SSE client, per reply byte. */
const storageRatio = (round: AtriumRound) => (round.serverWrittenBytes - round.sseBytes) / round.replyBytes;
/**
 * At a fixed pace, the bytes per reply byte of a reply twice as long: about 1 when writes grow linearly
 * with the reply (rewriting the row on every delta made it about 2).
 */
const TARGET_LINEARITY = 1.25;
/** Between GETs while waiting for the stored reply to hold the whole text. */
const DETAIL_POLL_MS = 5;
/** GET /v1/sessions/{id}?limit=1 with the 1 MB reply newest, on the idle server, for context. */
const IDLE_GETS = 20;

interface AtriumRound {
  rate: number;
  report: StreamReport;
  /** The SSE client held every character of the reply (its deltas joined), after the agent's last chunk. */
  sseAllTextMs: number;
  sseCompletedMs: number;
  /** The first GET /v1/sessions/{id} whose reply held the whole text, answered after the last chunk. */
  storedMs: number;
  detailPolls: number;
  deltas: number;
  serverCpuMs: number;
  serverWrittenBytes: number;
  /** What the server wrote to the SSE client's socket, to tell storage writes from delivery. */
  sseBytes: number;
  replyBytes: number;
}

/**
 * One measured turn: the prompt, then (a) the SSE client's deltas and completion, (b) GET polls
 * from the moment the agent reports its last chunk written. The server's CPU time and bytes written
 * are read before the prompt and once both are in.
 */
async function atriumRound(bench: SessionBench, sessionId: string, expected: string, tag: string, rate: number, count = CHUNKS): Promise<AtriumRound> {
  const events = await bench.openEvents(`?sessionId=${sessionId}`);
  try {
    const pid = bench.server.pid;
    const cpuBefore = cpuSeconds(pid);
    const writtenBefore = writtenBytes(pid);
    await bench.prompt(sessionId, `stream count=${count} size=${CHUNK_SIZE} rate=${rate} tag=${tag}`);
    await events.until(() => replyItemId(events, sessionId) !== undefined, ROUND_TIMEOUT_MS, "reply item");
    const itemId = replyItemId(events, sessionId)!;
    const report = await bench.report(tag, ROUND_TIMEOUT_MS);
    let storedAt: number | undefined;
    let detailPolls = 0;
    const deadline = performance.now() + ROUND_TIMEOUT_MS;
    while (storedAt === undefined) {
      if (performance.now() > deadline) throw new Error(`GET /v1/sessions/${sessionId} did not show the whole reply within ${ROUND_TIMEOUT_MS} ms`);
      const detail = await bench.api<DetailView>("GET", `/v1/sessions/${sessionId}?limit=1`);
      detailPolls++;
      const item = detail.body.conversation.at(-1);
      if (item?.id !== itemId) throw new Error(`the newest item of ${sessionId} is ${item?.id}, not the reply ${itemId}`);
      if (item.text.length >= expected.length) {
        storedAt = wallMs();
        if (item.text !== expected)
          throw new Error(`MISMATCH: the stored reply (${item.text.length} characters) is not the chunks joined (${expected.length})`);
      } else await Bun.sleep(DETAIL_POLL_MS);
    }
    await events.until(() => completionOf(events, itemId) !== undefined, ROUND_TIMEOUT_MS, "session.message.completed");
    const serverCpuMs = (cpuSeconds(pid) - cpuBefore) * 1000;
    const serverWrittenBytes = writtenBytes(pid) - writtenBefore;
    const deltas = deltasOf(events, itemId);
    const streamed = deltas.map((delta) => delta.text).join("");
    if (streamed !== expected)
      throw new Error(`MISMATCH: the SSE deltas joined (${streamed.length} characters) are not the chunks joined (${expected.length})`);
    const completed = completionOf(events, itemId)!;
    const completedText = (completed.payload.item as { text: string }).text;
    // A long reply's completed event leaves the text out (the deltas carry it): events stay under 1 MiB.
    const omitted = (completed.payload as { textOmitted?: boolean }).textOmitted === true;
    if (omitted ? completedText !== "" : completedText !== expected) {
      throw new Error(`MISMATCH: session.message.completed carries ${completedText.length} characters (textOmitted ${omitted}), not what it should`);
    }
    let received = 0;
    const allTextAt = deltas.find((delta) => {
      received += delta.text.length;
      return received >= expected.length;
    })!.receivedAt;
    return {
      rate,
      report,
      sseAllTextMs: allTextAt - report.lastChunkAt,
      sseCompletedMs: completed.receivedAt - report.lastChunkAt,
      storedMs: storedAt - report.lastChunkAt,
      detailPolls,
      deltas: deltas.length,
      serverCpuMs,
      serverWrittenBytes,
      sseBytes: events.bytesRead,
      replyBytes: expected.length,
    };
  } finally {
    events.close();
  }
}

/** The SDK's ACP client alone on the same agent, in a worker pinned to the server's CPU. */
async function bareRound(bench: SessionBench, tag: string, rate: number): Promise<BareClientResult> {
  const config: BareClientConfig = {
    command: agentCommand(),
    reportsDir: bench.reportsDir,
    warmupCount: WARMUP_CHUNKS,
    count: CHUNKS,
    size: CHUNK_SIZE,
    rate,
    tag,
  };
  const result = await runWorker<BareClientResult>("bare-acp-client.ts", config, SERVER_CPU, ROUND_TIMEOUT_MS);
  if (!result.textMatches) throw new Error("MISMATCH: the bare ACP client's text is not the chunks joined");
  return result;
}

/** The newest page of one item (the 1 MB reply) on the idle server, timed to the last byte. */
async function idleDetailGets(bench: SessionBench, sessionId: string): Promise<number[]> {
  const timings: number[] = [];
  for (let i = 0; i < IDLE_GETS + 3; i++) {
    const started = performance.now();
    const response = await fetch(`${bench.server.url}/v1/sessions/${sessionId}?limit=1`, { headers: bench.headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET /v1/sessions/${sessionId} answered ${response.status}`);
    if (i >= 3) timings.push(performance.now() - started);
  }
  return timings;
}

/**
 * One long reply: the streaming agent sends 20,000 chunks of 50 characters (1 MB) as fast as its
 * stdout takes them, into one session of the compiled server. Measured after the agent's last chunk
 * is written: when a connected SSE client holds the whole text, and when GET /v1/sessions/{id} shows
 * it. The server's CPU per chunk is set against the SDK's bare ACP client reading the same agent
 * (bench/workers/bare-acp-client.ts, pinned like the server), in alternating rounds. A last round
 * streams the same reply at 1,000 chunks/s, where the 25 ms delta timer rather than the 64 KiB
 * threshold decides how often the reply is written.
 */
export async function measureSessionStream(binary: string): Promise<MeasurementResult> {
  const expected = Array.from({ length: CHUNKS }, (_, index) => streamChunk(index, CHUNK_SIZE)).join("");
  const bench = await startSessionBench(binary);
  try {
    const { sessionId } = await bench.newSession();
    // Starts the agent and warms up both sides: the first turn also spawns and initializes the agent.
    const warmup = await bench.openEvents(`?sessionId=${sessionId}`);
    await bench.prompt(sessionId, `stream count=${WARMUP_CHUNKS} size=${CHUNK_SIZE}`);
    await warmup.until(
      () => {
        const itemId = replyItemId(warmup, sessionId);
        return itemId !== undefined && completionOf(warmup, itemId) !== undefined;
      },
      ROUND_TIMEOUT_MS,
      "the warm-up reply",
    );
    warmup.close();

    const atrium: AtriumRound[] = [];
    const bare: BareClientResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      atrium.push(await atriumRound(bench, sessionId, expected, `atrium-${round}`, 0));
      bare.push(await bareRound(bench, `bare-${round}`, 0));
    }
    const idleGet = summarize(await idleDetailGets(bench, sessionId));
    const pacedHalf = await atriumRound(bench, sessionId, expected.slice(0, expected.length / 2), "atrium-paced-half", PACED_RATE, CHUNKS / 2);
    const paced = await atriumRound(bench, sessionId, expected, "atrium-paced", PACED_RATE);
    const barePaced = await bareRound(bench, "bare-paced", PACED_RATE);

    const perThousand = (cpuMs: number) => (cpuMs / CHUNKS) * 1000;
    const serverCpu = median(atrium.map((round) => perThousand(round.serverCpuMs)));
    const bareCpu = median(bare.map((round) => perThousand(round.cpuMs)));
    const agentCpu = median(atrium.map((round) => perThousand(round.report.cpuMs)));
    const streamMs = median(atrium.map((round) => round.report.lastChunkAt - round.report.firstChunkAt));
    const bareStreamMs = median(bare.map((round) => round.report.lastChunkAt - round.report.firstChunkAt));
    const pacedCpu = perThousand(paced.serverCpuMs);
    const barePacedCpu = perThousand(barePaced.cpuMs);
    const MiB = 1024 * 1024;
    const worst = (values: number[]) => Math.max(...values);
    return {
      method:
        `${CHUNKS.toLocaleString("en-US")} chunks of ${CHUNK_SIZE} characters (${(expected.length / 1e6).toFixed(2)} MB) from ` +
        `bench/workers/streaming-agent.ts (a custom harness, pinned to the load CPU) as fast as its stdout takes them, ` +
        `${ROUNDS} rounds in one session after a ${WARMUP_CHUNKS.toLocaleString("en-US")}-chunk warm-up turn, then one round paced at ` +
        `${PACED_RATE.toLocaleString("en-US")} chunks/s (each side); times are from the agent's last chunk written (wall clock shared by all ` +
        `processes) to the benchmark's SSE client holding every delta, and to the first GET /v1/sessions/{id}?limit=1 (polled every ` +
        `${DETAIL_POLL_MS} ms from then) showing the whole text; stored, streamed and completed text are checked equal to the chunks ` +
        `joined; medians of rounds; CPU and bytes written from /proc/<pid>/stat and /io; baseline: the SDK's ACP client reading ` +
        `the same agent with no server, pinned to the server CPU, rounds alternating; the benchmark process is not pinned; ${pinning}.`,
      figures: [
        {
          label: "SSE client holds all text, after the last chunk (median)",
          value: median(atrium.map((r) => r.sseAllTextMs)),
          unit: "ms",
          target: { comparison: "<", value: TARGET_AFTER_LAST_CHUNK_MS },
        },
        { label: "SSE, worst round", value: worst(atrium.map((r) => r.sseAllTextMs)), unit: "ms" },
        { label: "session.message.completed, after the last chunk", value: median(atrium.map((r) => r.sseCompletedMs)), unit: "ms" },
        {
          label: "GET shows the whole reply, after the last chunk (median)",
          value: median(atrium.map((r) => r.storedMs)),
          unit: "ms",
          target: { comparison: "<", value: TARGET_AFTER_LAST_CHUNK_MS },
        },
        { label: "GET, worst round", value: worst(atrium.map((r) => r.storedMs)), unit: "ms" },
        { label: "GET ?limit=1 with the 1 MB reply, idle server, p50", value: idleGet.p50, unit: "ms" },
        { label: "agent's stream, first to last chunk, into Atrium", value: streamMs, unit: "ms" },
        { label: "agent's stream, into the bare ACP client", value: bareStreamMs, unit: "ms" },
        { label: "bare ACP client holds all text, after the last chunk", value: median(bare.map((r) => r.allTextAfterLastChunkMs)), unit: "ms" },
        { label: "server CPU per 1,000 chunks", value: serverCpu, unit: "ms" },
        { label: "bare ACP client CPU per 1,000 chunks (baseline)", value: bareCpu, unit: "ms" },
        { label: "ratio server CPU / bare ACP client CPU", value: serverCpu / bareCpu, unit: "ratio" },
        { label: "agent's own CPU per 1,000 chunks", value: agentCpu, unit: "ms" },
        { label: "deltas per reply (median)", value: median(atrium.map((r) => r.deltas)), unit: "events" },
        { label: "server bytes written per reply (median)", value: median(atrium.map((r) => r.serverWrittenBytes)) / MiB, unit: "MiB" },
        {
          label: "storage bytes written per reply byte (all writes less the SSE stream)",
          value: median(atrium.map(storageRatio)),
          unit: "ratio",
          target: { comparison: "<", value: TARGET_WRITE_RATIO },
        },
        {
          label: `paced at ${PACED_RATE.toLocaleString("en-US")} chunks/s: SSE holds all text, after the last chunk`,
          value: paced.sseAllTextMs,
          unit: "ms",
          target: { comparison: "<", value: TARGET_AFTER_LAST_CHUNK_MS },
        },
        {
          label: "paced: GET shows the whole reply, after the last chunk",
          value: paced.storedMs,
          unit: "ms",
          target: { comparison: "<", value: TARGET_AFTER_LAST_CHUNK_MS },
        },
        { label: "paced: deltas", value: paced.deltas, unit: "events" },
        { label: "paced: server CPU per 1,000 chunks", value: pacedCpu, unit: "ms" },
        { label: "paced: bare ACP client CPU per 1,000 chunks (baseline)", value: barePacedCpu, unit: "ms" },
        { label: "paced: ratio server CPU / bare ACP client CPU", value: pacedCpu / barePacedCpu, unit: "ratio" },
        { label: "paced: server bytes written for the reply", value: paced.serverWrittenBytes / MiB, unit: "MiB" },
        { label: "paced: storage bytes written per reply byte", value: storageRatio(paced), unit: "ratio" },
        { label: "paced: the same for a reply half as long", value: storageRatio(pacedHalf), unit: "ratio" },
        {
          label: "paced: per-byte writes, full / half length (linear = 1)",
          value: storageRatio(paced) / storageRatio(pacedHalf),
          unit: "ratio",
          target: { comparison: "<", value: TARGET_LINEARITY },
        },
        {
          label: "rounds whose stored, streamed and completed text equal the chunks",
          value: atrium.length + 2,
          unit: "runs",
          target: { comparison: ">=", value: ROUNDS + 2 },
        },
      ],
      details: {
        chunks: CHUNKS,
        chunkSize: CHUNK_SIZE,
        characters: expected.length,
        warmupChunks: WARMUP_CHUNKS,
        rounds: ROUNDS,
        pacedRate: PACED_RATE,
        atrium,
        bare,
        paced,
        barePaced,
        idleDetailGetMs: idleGet,
      },
    };
  } finally {
    await bench.stop();
  }
}

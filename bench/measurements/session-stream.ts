import { readFileSync } from "node:fs";
import { streamingAgent, streamingAgentCommand, type StreamingAgent } from "../lib/agents.ts";
import { newestPage, prompt, scratchSession, type Atrium } from "../lib/atrium.ts";
import { cpuSeconds } from "../lib/cpu.ts";
import { completionOf, deltasOf, replyItemId, wallMs } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { SERVER_CPU, runWorker, until } from "../lib/processes.ts";
import { below, type Figure } from "../lib/report.ts";
import { median, medianOf, ratio, summarize } from "../lib/stats.ts";
import type { BareClientConfig, BareClientResult } from "../workers/bare-acp-client.ts";
import { streamChunk, type StreamReport } from "../workers/streaming-agent.ts";

const CHUNKS = 20_000;
const CHUNK_SIZE = 50;
/** About what a fast model streams: the server's 25 ms delta timer, not its 64 KiB threshold, decides how often the reply is written. */
const PACED_RATE = 1_000;
const ROUND_TIMEOUT_MS = 60_000;
const EXPECTED = Array.from({ length: CHUNKS }, (_, index) => streamChunk(index, CHUNK_SIZE)).join("");

type World = { atrium: Atrium; agent: StreamingAgent; sessionId: string };

/** Bytes a process has handed to write(2) and the like (/proc/<pid>/io `wchar`): WAL, checkpoints, log lines and sockets alike. */
function writtenBytes(pid: number): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? Number.NaN);
}

/** One turn, its SSE deltas and GET polls from the agent's last chunk on; stored and streamed text must be the chunks joined. */
async function reply({ atrium, agent, sessionId }: World, tag: string, rate: number, count = CHUNKS) {
  const expected = EXPECTED.slice(0, count * CHUNK_SIZE);
  const events = await atrium.events(`?sessionId=${sessionId}`);
  try {
    const [cpuBefore, writtenBefore] = [cpuSeconds(atrium.pid), writtenBytes(atrium.pid)];
    await prompt(atrium, sessionId, `stream count=${count} size=${CHUNK_SIZE} rate=${rate} tag=${tag}`);
    await events.until(() => replyItemId(events, sessionId) !== undefined, ROUND_TIMEOUT_MS, "the reply item");
    const itemId = replyItemId(events, sessionId)!;
    const report = await agent.report(tag, ROUND_TIMEOUT_MS);
    const storedAt = await until(
      async () => {
        const item = (await newestPage(atrium, sessionId)).conversation.at(-1);
        if (item?.id !== itemId || item.text.length < expected.length) return undefined;
        if (item.text !== expected) throw new Error(`MISMATCH: the stored reply (${item.text.length} characters) is not the chunks joined`);
        return wallMs();
      },
      ROUND_TIMEOUT_MS,
      "the stored reply holding the whole text",
      5,
    );
    await events.until(() => completionOf(events, itemId) !== undefined, ROUND_TIMEOUT_MS, "session.message.completed");
    const serverCpuMs = (cpuSeconds(atrium.pid) - cpuBefore) * 1000;
    const written = writtenBytes(atrium.pid) - writtenBefore;
    const deltas = deltasOf(events, itemId);
    if (deltas.map((delta) => delta.text).join("") !== expected) throw new Error("MISMATCH: the SSE deltas joined are not the chunks joined");
    let received = 0;
    const allTextAt = deltas.find((delta) => {
      received += delta.text.length;
      return received >= expected.length;
    })!.receivedAt;
    return {
      report,
      /** The SSE client held every character of the reply (its deltas joined), after the agent's last chunk. */
      sseAllTextMs: allTextAt - report.lastChunkAt,
      sseCompletedMs: completionOf(events, itemId)!.receivedAt - report.lastChunkAt,
      storedMs: storedAt - report.lastChunkAt,
      deltas: deltas.length,
      serverCpuMs,
      /** Storage writes per reply byte: the server's bytes written (WAL, checkpoint, log) less what it sent the SSE client. */
      storagePerByte: (written - events.bytesRead) / expected.length,
    };
  } finally {
    events.close();
  }
}

/** The SDK's ACP client alone on the same agent, in a worker pinned to the server's CPU, after a warm-up turn of its own. */
async function bare({ agent }: World, tag: string, rate: number): Promise<BareClientResult> {
  const config: BareClientConfig = {
    command: streamingAgentCommand(),
    reportsDir: agent.reportsDir,
    warmupCount: CHUNKS,
    count: CHUNKS,
    size: CHUNK_SIZE,
    rate,
    tag,
  };
  const result = await runWorker<BareClientResult>("bare-acp-client.ts", config, SERVER_CPU, ROUND_TIMEOUT_MS * 2);
  if (!result.textMatches) throw new Error("MISMATCH: the bare ACP client's text is not the chunks joined");
  return result;
}

const perThousand = (cpuMs: number) => (cpuMs / CHUNKS) * 1000;

export const sessionStream = measurement({
  key: "stream",
  title: "One long reply: 20,000 chunks -> SSE and store",
  seed: {
    what: "the compiled binary with bench/workers/streaming-agent.ts as a custom harness (pinned to the load CPU), one session of it.",
    async run(bench) {
      const agent = streamingAgent(bench.tempDir("stream"));
      const atrium = await bench.atrium({ agent });
      return { atrium, agent, sessionId: await scratchSession(atrium, agent.harness) };
    },
  },
  action: {
    what:
      `the agent streams ${CHUNKS.toLocaleString("en-US")} chunks of ${CHUNK_SIZE} characters (${(EXPECTED.length / 1e6).toFixed(2)} MB) as fast as ` +
      "its stdout takes them; times from its last chunk written (one wall clock for all processes) to an SSE client holding every " +
      "delta, and to the first GET /v1/sessions/{id}?limit=1 (polled every 5 ms) showing the whole text, both checked equal to the " +
      `chunks; the server's CPU and bytes written from /proc; then 20 idle GETs; then the reply and one half as long at ${PACED_RATE.toLocaleString("en-US")} chunks/s.`,
    async run(world, round) {
      const full = await reply(world, `full-${round}`, 0);
      const idleGet = summarize(await world.atrium.timeGets(20, () => `/v1/sessions/${world.sessionId}?limit=1`));
      const pacedHalf = await reply(world, `half-${round}`, PACED_RATE, CHUNKS / 2);
      return { full, idleGet, paced: await reply(world, `paced-${round}`, PACED_RATE), pacedHalf };
    },
  },
  baseline: {
    what: "the SDK's own ACP client reading the same agent with no server, pinned to the server CPU, at both paces: what reading ACP costs any client.",
    run: async (world, round) => ({ full: await bare(world, `bare-${round}`, 0), paced: await bare(world, `bare-paced-${round}`, PACED_RATE) }),
  },
  rounds: { warmup: 1, measured: 3 },
  figures({ action, baseline }) {
    const of = (pick: (round: (typeof action)[number]) => number) => medianOf(action, pick);
    const serverCpu = of((round) => perThousand(round.full.serverCpuMs));
    const bareCpu = medianOf(baseline, (round) => perThousand(round.full.cpuMs));
    const pacedCpu = of((round) => perThousand(round.paced.serverCpuMs));
    const barePacedCpu = medianOf(baseline, (round) => perThousand(round.paced.cpuMs));
    const streamMs = (report: StreamReport) => report.lastChunkAt - report.firstChunkAt;
    const figures: Figure[] = [
      { label: "SSE client holds all text, after the last chunk", value: of((r) => r.full.sseAllTextMs), unit: "ms", target: below(1_000) },
      { label: "session.message.completed, after the last chunk", value: of((r) => r.full.sseCompletedMs), unit: "ms" },
      { label: "GET shows the whole reply, after the last chunk", value: of((r) => r.full.storedMs), unit: "ms", target: below(1_000) },
      { label: "GET ?limit=1 with the 1 MB reply, idle server, p50", value: of((r) => r.idleGet.p50), unit: "ms" },
      { label: "agent's stream, first to last chunk, into Atrium", value: of((r) => streamMs(r.full.report)), unit: "ms" },
      { label: "agent's stream, into the bare ACP client", value: medianOf(baseline, (b) => streamMs(b.full.report)), unit: "ms" },
      { label: "bare ACP client holds all text, after the last chunk", value: medianOf(baseline, (b) => b.full.allTextAfterLastChunkMs), unit: "ms" },
      { label: "server CPU per 1,000 chunks", value: serverCpu, unit: "ms" },
      { label: "bare ACP client CPU per 1,000 chunks (baseline)", value: bareCpu, unit: "ms" },
      { label: "ratio server CPU / bare ACP client CPU", value: ratio(serverCpu, bareCpu), unit: "ratio" },
      { label: "agent's own CPU per 1,000 chunks", value: of((r) => perThousand(r.full.report.cpuMs)), unit: "ms" },
      { label: "deltas per reply", value: of((r) => r.full.deltas), unit: "count" },
      {
        label: "storage bytes written per reply byte (all writes less the SSE stream)",
        value: of((r) => r.full.storagePerByte),
        unit: "ratio",
        target: below(3),
      },
      { label: "paced: SSE holds all text, after the last chunk", value: of((r) => r.paced.sseAllTextMs), unit: "ms", target: below(1_000) },
      { label: "paced: GET shows the whole reply, after the last chunk", value: of((r) => r.paced.storedMs), unit: "ms", target: below(1_000) },
      { label: "paced: deltas", value: of((r) => r.paced.deltas), unit: "count" },
      { label: "paced: server CPU per 1,000 chunks", value: pacedCpu, unit: "ms" },
      { label: "paced: bare ACP client CPU per 1,000 chunks (baseline)", value: barePacedCpu, unit: "ms" },
      { label: "paced: ratio server CPU / bare ACP client CPU", value: ratio(pacedCpu, barePacedCpu), unit: "ratio" },
      { label: "paced: storage bytes written per reply byte", value: of((r) => r.paced.storagePerByte), unit: "ratio", target: below(5) },
      { label: "paced: the same for a reply half as long", value: of((r) => r.pacedHalf.storagePerByte), unit: "ratio" },
    ];
    const linear = median(action.map((r) => ratio(r.paced.storagePerByte, r.pacedHalf.storagePerByte)));
    return [...figures, { label: "paced: per-byte writes, full / half length (linear = 1)", value: linear, unit: "ratio", target: below(1.25) }];
  },
});

import { streamingAgent, type StreamingAgent } from "../lib/agents.ts";
import { newestPage, newSession, prompt, scratchProject, type Atrium } from "../lib/atrium.ts";
import { cpuSeconds } from "../lib/cpu.ts";
import { deltasOf, type EventStream, replyDone, replyItemId, stampedChunkLags } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { atLeast, type Figure } from "../lib/report.ts";
import { median, medianOf, summarize } from "../lib/stats.ts";

const SESSIONS = 20;
const CHUNKS = 2_000;
const CHUNK_SIZE = 50;
/** The paced round, chunks per second and session: a fast model's pace, a fifth of what the server takes. */
const PACED_RATE = 500;
const TURNS_TIMEOUT_MS = 120_000;

type World = { atrium: Atrium; agent: StreamingAgent; events: EventStream; sessionIds: string[] };

/** All sessions get their prompt at once; resolves when every reply is complete and checked. */
async function streamRound({ atrium, agent, events, sessionIds }: World, rate: number, tag: string) {
  const from = events.events.length;
  const [cpuBefore, wallBefore] = [cpuSeconds(atrium.pid), performance.now()];
  await Promise.all(sessionIds.map((id, index) => prompt(atrium, id, `stream count=${CHUNKS} size=${CHUNK_SIZE} rate=${rate} stamp=1 tag=${tag}-${index}`)));
  await events.until(() => sessionIds.every((id) => replyDone(events, id, from)), TURNS_TIMEOUT_MS, "the end of all replies");
  const serverCpuMs = (cpuSeconds(atrium.pid) - cpuBefore) * 1000;
  const busyMs = performance.now() - wallBefore;
  const problems: string[] = [];
  const lags: number[] = [];
  const reports = [];
  const deltaCounts: number[] = [];
  let lastDelivered = 0;
  for (const [index, id] of sessionIds.entries()) {
    reports.push(await agent.report(`${tag}-${index}`, 5_000));
    const itemId = replyItemId(events, id, from)!;
    const deltas = deltasOf(events, itemId, from);
    deltaCounts.push(deltas.length);
    lastDelivered = Math.max(lastDelivered, deltas.at(-1)?.receivedAt ?? Number.NaN);
    const own = events.events.filter((event) => event.subjectId === id && event.kind.startsWith("session."));
    const gap = own.findIndex((event, at) => event.id !== at + 1);
    const stored = (await newestPage(atrium, id)).conversation.at(-1);
    const { lags: chunks, problem } = stampedChunkLags(deltas);
    lags.push(...chunks.map((chunk) => chunk.lagMs));
    const wrong =
      (gap !== -1 && `event ${gap} has id ${own[gap]!.id}`) ||
      (stored?.text !== deltas.map((delta) => delta.text).join("") && "the stored reply is not the deltas joined") ||
      problem ||
      (chunks.length !== CHUNKS && `${chunks.length} of ${CHUNKS} chunks arrived`);
    if (wrong) problems.push(`${id}: ${wrong}`);
  }
  const firstSent = Math.min(...reports.map((report) => report.firstChunkAt));
  const lastSent = Math.max(...reports.map((report) => report.lastChunkAt));
  const total = sessionIds.length * CHUNKS;
  return {
    lag: summarize(lags),
    /** Sessions whose events ran 1, 2, 3… with no gap, whose stored reply is the deltas joined, and whose chunks all came in order. */
    intact: sessionIds.length - problems.length,
    problems,
    deliveredPerSecond: total / ((lastDelivered - firstSent) / 1000),
    sentPerSecond: total / ((lastSent - firstSent) / 1000),
    lastDeliveredAfterLastSentMs: lastDelivered - lastSent,
    serverCpuMsPerThousand: (serverCpuMs / total) * 1000,
    serverBusyPercent: (serverCpuMs / busyMs) * 100,
    deltasPerReply: median(deltaCounts),
  };
}

type Round = Awaited<ReturnType<typeof streamRound>>;

function roundFigures(prefix: string, rounds: Round[]): Figure[] {
  const of = (pick: (round: Round) => number) => medianOf(rounds, pick);
  return [
    {
      label: `${prefix}sessions with every event (ids 1..n, no gap) and every chunk, in order (worst round)`,
      value: Math.min(...rounds.map((r) => r.intact)),
      unit: "count",
      target: atLeast(SESSIONS),
    },
    { label: `${prefix}chunks delivered per second, all sessions`, value: of((r) => r.deliveredPerSecond), unit: "chunks/s" },
    { label: `${prefix}chunks sent per second by the agents`, value: of((r) => r.sentPerSecond), unit: "chunks/s" },
    { label: `${prefix}delivery lag p50`, value: of((r) => r.lag.p50), unit: "ms" },
    { label: `${prefix}delivery lag p99`, value: of((r) => r.lag.p99), unit: "ms" },
    { label: `${prefix}delivery lag max`, value: of((r) => r.lag.max), unit: "ms" },
    { label: `${prefix}last chunk delivered, after the last chunk sent`, value: of((r) => r.lastDeliveredAfterLastSentMs), unit: "ms" },
    { label: `${prefix}server CPU per 1,000 chunks`, value: of((r) => r.serverCpuMsPerThousand), unit: "ms" },
    { label: `${prefix}server CPU busy, prompts to last completion`, value: of((r) => r.serverBusyPercent), unit: "%" },
    { label: `${prefix}deltas per reply`, value: of((r) => r.deltasPerReply), unit: "count" },
  ];
}

export const sessionConcurrent = measurement({
  key: "concurrent",
  title: "20 sessions streaming at once -> 1 SSE client",
  seed: {
    what:
      `${SESSIONS} sessions of bench/workers/streaming-agent.ts (${SESSIONS} agent processes, all on the load CPU), each warmed by a ` +
      "200-chunk turn that also starts its agent; one SSE client on GET /v1/events/stream, connected before the sessions were made.",
    async run(bench) {
      const agent = streamingAgent(bench.tempDir("concurrent"));
      const atrium = await bench.atrium({ agent });
      const events = await atrium.events();
      bench.defer(() => events.close());
      const projectId = await scratchProject(atrium);
      const sessionIds: string[] = [];
      while (sessionIds.length < SESSIONS) sessionIds.push(await newSession(atrium, projectId, agent.harness));
      await Promise.all(sessionIds.map((id) => prompt(atrium, id, `stream count=200 size=${CHUNK_SIZE} stamp=1`)));
      await events.until(() => sessionIds.every((id) => replyDone(events, id)), TURNS_TIMEOUT_MS, "the end of all warm-up replies");
      return { atrium, agent, events, sessionIds };
    },
  },
  action: {
    what:
      `every session streams ${CHUNKS.toLocaleString("en-US")} chunks of ${CHUNK_SIZE} characters at once, as fast as its stdout takes ` +
      "them, each chunk carrying its send time; lag = the client read the delta that completed a chunk - the agent sent it; " +
      "chunks/s over first chunk sent to last delivered; each session's event ids, stored reply and chunk order checked. Then the " +
      `same at ${PACED_RATE} chunks/s per session, a fifth of what the server takes: the lag a reader sees when it is not saturated.`,
    run: async (world, round) => ({ full: await streamRound(world, 0, `full-${round}`), paced: await streamRound(world, PACED_RATE, `paced-${round}`) }),
  },
  baseline: {
    what: "none: nothing lost or reordered is absolute, and the full-speed lag is mostly the agents' pipes filling (the paced round shows the rest).",
  },
  rounds: { warmup: 0, measured: 3 },
  figures: ({ action }) => [
    ...roundFigures(
      "full speed: ",
      action.map((round) => round.full),
    ),
    ...roundFigures(
      `${PACED_RATE}/s each: `,
      action.map((round) => round.paced),
    ),
  ],
});

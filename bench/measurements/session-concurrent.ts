import { cpuSeconds } from "../lib/cpu.ts";
import { pinning } from "../lib/processes.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";
import type { StreamReport } from "../workers/streaming-agent.ts";
import {
  completionOf,
  deltasOf,
  replyItemId,
  startSessionBench,
  type DetailView,
  type EventStreamReader,
  type ReceivedEvent,
  type SessionBench,
} from "./session-common.ts";

const SESSIONS = 20;
const CHUNKS = 2_000;
const CHUNK_SIZE = 50;
const WARMUP_CHUNKS = 200;
/** The paced round, chunks per second and session: a fast model's pace, a fifth of what the server takes. */
const PACED_RATE = 500;
/** Bounds the warm-up turns and the measured turns, each. */
const TURNS_TIMEOUT_MS = 120_000;

/**
 * Every event of one session, as the single SSE client got them: their `id`s must run 1, 2, 3, …
 * with no gap and no repeat, since the client connected before the session was created.
 */
function sessionEventProblem(events: ReceivedEvent[], sessionId: string): string | undefined {
  const own = events.filter((event) => event.subjectId === sessionId && event.kind.startsWith("session."));
  const gap = own.findIndex((event, index) => event.id !== index + 1);
  if (gap !== -1) return `event ${gap} of the session has id ${own[gap]!.id}, expected ${gap + 1}`;
  return undefined;
}

interface SessionOutcome {
  sessionId: string;
  problem: string | undefined;
  /** Per chunk: the SSE client read the delta that completed it, minus the agent's send time. */
  lagsMs: number[];
  deltas: number;
  report: StreamReport;
  lastDeliveredAt: number;
}

/**
 * One session's reply, checked: deltas joined equal the stored text; the text is chunks 0 … N-1 in
 * order, each `<index>@<sent at>` padded to the chunk size; and each chunk's delivery lag is read off
 * the delta that brought its last character.
 */
async function checkSession(
  events: EventStreamReader,
  sessionId: string,
  itemId: string,
  fetchDetail: () => Promise<DetailView>,
  report: StreamReport,
): Promise<SessionOutcome> {
  const deltas = deltasOf(events, itemId);
  const outcome: SessionOutcome = {
    sessionId,
    problem: sessionEventProblem(events.events, sessionId),
    lagsMs: [],
    deltas: deltas.length,
    report,
    lastDeliveredAt: deltas.at(-1)?.receivedAt ?? Number.NaN,
  };
  const streamed = deltas.map((delta) => delta.text).join("");
  const stored = (await fetchDetail()).conversation.at(-1);
  if (stored?.id !== itemId || stored.text !== streamed) {
    outcome.problem ??= `MISMATCH: the stored reply (${stored?.text.length} characters) is not the deltas joined (${streamed.length})`;
  }
  let deltaIndex = 0;
  let deltaEnd = deltas[0]?.text.length ?? 0;
  let offset = 0;
  let index = 0;
  for (const line of streamed.split("\n")) {
    if (line === "" && offset === streamed.length) break;
    offset += line.length + 1;
    const match = /^(\d+)@(\d+\.\d+)\.*$/.exec(line);
    if (!match || Number(match[1]) !== index || line.length !== CHUNK_SIZE - 1) {
      outcome.problem ??= `chunk ${index} reads ${JSON.stringify(line.slice(0, 40))}`;
      break;
    }
    while (deltaEnd < offset && deltaIndex < deltas.length - 1) deltaEnd += deltas[++deltaIndex]!.text.length;
    outcome.lagsMs.push(deltas[deltaIndex]!.receivedAt - Number(match[2]));
    index++;
  }
  if (index !== CHUNKS) outcome.problem ??= `${index} of ${CHUNKS} chunks arrived`;
  return outcome;
}

interface RoundResult {
  /** Chunks per second and session the agents were asked for; 0 is as fast as their stdout takes them. */
  rate: number;
  outcomes: SessionOutcome[];
  lag: ReturnType<typeof summarize>;
  deliveredPerSecond: number;
  sentPerSecond: number;
  lastDeliveredAfterLastSentMs: number;
  serverCpuMsPerThousand: number;
  serverBusyPercent: number;
  deltasPerReply: number;
}

/** All sessions get their prompt at once; resolves when every reply is complete and checked. */
async function streamRound(bench: SessionBench, events: EventStreamReader, sessionIds: string[], rate: number): Promise<RoundResult> {
  const from = events.events.length;
  const pid = bench.server.pid;
  const cpuBefore = cpuSeconds(pid);
  const wallBefore = performance.now();
  const tag = (index: number) => `rate${rate}-s${index}`;
  await Promise.all(sessionIds.map((id, index) => bench.prompt(id, `stream count=${CHUNKS} size=${CHUNK_SIZE} rate=${rate} stamp=1 tag=${tag(index)}`)));
  await events.until(allDone(events, sessionIds, from), TURNS_TIMEOUT_MS, "the end of all replies");
  const serverCpuMs = (cpuSeconds(pid) - cpuBefore) * 1000;
  const wallMs = performance.now() - wallBefore;
  const outcomes: SessionOutcome[] = [];
  for (const [index, id] of sessionIds.entries()) {
    const report = await bench.report(tag(index), 5_000);
    const itemId = replyItemId(events, id, from)!;
    const fetchDetail = async () => (await bench.api<DetailView>("GET", `/v1/sessions/${id}?limit=1`)).body;
    outcomes.push(await checkSession(events, id, itemId, fetchDetail, report));
  }
  const firstSent = Math.min(...outcomes.map((outcome) => outcome.report.firstChunkAt));
  const lastSent = Math.max(...outcomes.map((outcome) => outcome.report.lastChunkAt));
  const lastDelivered = Math.max(...outcomes.map((outcome) => outcome.lastDeliveredAt));
  const totalChunks = sessionIds.length * CHUNKS;
  return {
    rate,
    outcomes,
    lag: summarize(outcomes.flatMap((outcome) => outcome.lagsMs)),
    deliveredPerSecond: Math.round(totalChunks / ((lastDelivered - firstSent) / 1000)),
    sentPerSecond: Math.round(totalChunks / ((lastSent - firstSent) / 1000)),
    lastDeliveredAfterLastSentMs: lastDelivered - lastSent,
    serverCpuMsPerThousand: (serverCpuMs / totalChunks) * 1000,
    serverBusyPercent: (serverCpuMs / wallMs) * 100,
    deltasPerReply: summarize(outcomes.map((outcome) => outcome.deltas)).p50,
  };
}

/** Every session's reply after event index `from` is complete. */
function allDone(events: EventStreamReader, sessionIds: string[], from: number): () => boolean {
  return () =>
    sessionIds.every((id) => {
      const itemId = replyItemId(events, id, from);
      return itemId !== undefined && completionOf(events, itemId, from) !== undefined;
    });
}

/**
 * 20 sessions of the streaming agent reply at once, 2,000 chunks each, every chunk carrying its send
 * time; one SSE client on GET /v1/events/stream takes everything. First as fast as the agents can
 * send (throughput; the lag is then mostly the agents' pipes filling up), then paced at
 * PACED_RATE chunks/s per session (the lag a reader sees when the server is not saturated).
 * Checked per session: event ids with no gap, deltas joined equal the stored reply, chunks in order.
 */
export async function measureSessionConcurrent(binary: string): Promise<MeasurementResult> {
  const bench = await startSessionBench(binary);
  // Connected before any session exists, so that every session event is seen from id 1.
  const events = await bench.openEvents("");
  try {
    const { projectId, sessionId: first } = await bench.newSession();
    const sessionIds = [first];
    while (sessionIds.length < SESSIONS) sessionIds.push((await bench.newSession(projectId)).sessionId);

    // Warm-up turns start the 20 agents (and warm up the server) before anything is measured.
    const warmupFrom = events.events.length;
    await Promise.all(sessionIds.map((id) => bench.prompt(id, `stream count=${WARMUP_CHUNKS} size=${CHUNK_SIZE} stamp=1`)));
    await events.until(allDone(events, sessionIds, warmupFrom), TURNS_TIMEOUT_MS, "the end of all warm-up replies");

    const full = await streamRound(bench, events, sessionIds, 0);
    const paced = await streamRound(bench, events, sessionIds, PACED_RATE);

    const globalIds = events.events.map((event) => event.globalEventId);
    const globalOrder = globalIds.every((id, index) => index === 0 || id > globalIds[index - 1]!);
    const problems = [...full.outcomes, ...paced.outcomes].filter((outcome) => outcome.problem).map((outcome) => `${outcome.sessionId}: ${outcome.problem}`);
    if (!globalOrder) problems.push("the stream's globalEventIds did not rise");
    if (events.problems.length > 0) problems.push(...events.problems);
    const intact = (round: RoundResult) => (globalOrder ? round.outcomes.filter((outcome) => !outcome.problem).length : 0);
    const roundFigures = (round: RoundResult, prefix: string): Figure[] => [
      {
        label: `${prefix}sessions with every event (ids 1..n, no gap) and every chunk, in order`,
        value: intact(round),
        unit: "sessions",
        target: { comparison: ">=", value: SESSIONS },
      },
      { label: `${prefix}chunks delivered per second, all sessions`, value: round.deliveredPerSecond, unit: "chunks/s" },
      { label: `${prefix}chunks sent per second by the agents`, value: round.sentPerSecond, unit: "chunks/s" },
      { label: `${prefix}delivery lag p50`, value: round.lag.p50, unit: "ms" },
      { label: `${prefix}delivery lag p99`, value: round.lag.p99, unit: "ms" },
      { label: `${prefix}delivery lag max`, value: round.lag.max, unit: "ms" },
      { label: `${prefix}last chunk delivered, after the last chunk sent`, value: round.lastDeliveredAfterLastSentMs, unit: "ms" },
      { label: `${prefix}server CPU per 1,000 chunks`, value: round.serverCpuMsPerThousand, unit: "ms" },
      { label: `${prefix}server CPU busy, prompts to last completion`, value: round.serverBusyPercent, unit: "%" },
      { label: `${prefix}deltas per reply (median)`, value: round.deltasPerReply, unit: "events" },
    ];
    const details = (round: RoundResult) => ({
      ...round,
      outcomes: round.outcomes.map(({ lagsMs, ...outcome }) => ({ ...outcome, lagMs: summarize(lagsMs) })),
    });
    return {
      method:
        `${SESSIONS} sessions of bench/workers/streaming-agent.ts (${SESSIONS} agent processes, all pinned to the load CPU) each ` +
        `stream ${CHUNKS.toLocaleString("en-US")} chunks of ${CHUNK_SIZE} characters at once, first as fast as their stdout takes ` +
        `them, then at ${PACED_RATE} chunks/s each, after a ${WARMUP_CHUNKS}-chunk warm-up turn each; every chunk carries its send ` +
        `time (wall clock shared by all processes); one SSE client on GET /v1/events/stream, connected before the sessions were ` +
        `made, takes every event; lag = the client read the last byte of the delta that completed a chunk - the agent sent it; chunks/s over ` +
        `first chunk sent to last delivered; the benchmark process is not pinned; ${pinning}.` +
        (problems.length > 0 ? ` Problems (${problems.length}): ${problems.slice(0, 3).join("; ")}` : ""),
      figures: [...roundFigures(full, "full speed: "), ...roundFigures(paced, `${PACED_RATE}/s each: `)],
      details: {
        sessions: SESSIONS,
        chunks: CHUNKS,
        chunkSize: CHUNK_SIZE,
        warmupChunks: WARMUP_CHUNKS,
        pacedRate: PACED_RATE,
        eventsReceived: events.events.length,
        problems: problems.slice(0, 20),
        full: details(full),
        paced: details(paced),
      },
    };
  } finally {
    events.close();
    await bench.stop();
  }
}

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ApiCall } from "../lib/api.ts";
import { cpuSeconds } from "../lib/cpu.ts";
import { awaitHarnessReady, type HarnessReadiness } from "../lib/harness-ready.ts";
import { pinning, tempDir, withTimeout } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize, type Summary } from "../lib/stats.ts";
import { EventStreamReader, HARNESS_ID, completionOf, deltasOf, replyItemId, wallMs, writeAgentWrapper } from "./session-common.ts";
import {
  DAY_SECONDS,
  databaseFiles,
  eventsHealth,
  logPosition,
  serverLogLines,
  serverTrouble,
  settledDatabaseFiles,
  startOnDataDir,
  CompletionWatcher,
  type DataDirServer,
  type DatabaseFiles,
} from "./event-log-common.ts";

/** ATRIUM_COMPACTION_EVENTS=20000 for a quick trial; the measurement builds a backlog of 100,000. */
const BACKLOG_EVENTS = Number(process.env.ATRIUM_COMPACTION_EVENTS ?? 100_000);
/**
 * Part of the backlog is replies (echo `/long 1000`, 9.9 KB, about 11 events each), whose deltas a
 * pass folds into their rows; the rest is PUT /v1/sync writes, one `sync.changed` each, which come
 * faster. One turn per this many backlog events.
 */
const EVENTS_PER_BACKLOG_TURN = 100;
const BACKLOG_SESSIONS = 8;
const SYNC_WRITERS = 8;
/** Sync keys the writes go round: a PUT answers with the whole namespace, so it stays small. */
const SYNC_KEYS = 16;
const RETENTION_SECONDS = 30;
/**
 * The second start's interval: its first pass runs 60 s after the start (min(60 s, interval)) and
 * the next one long after the measurement ends, so exactly one pass runs and it starts on time.
 */
const COMPACTION_MINUTES = 10;
const FIRST_PASS_MS = 60_000;
/** The measured replies: the streaming agent's stamped chunks, at a fast model's pace. */
const RATE = 1_000;
const CHUNK_SIZE = 50;
/** Two seconds of streaming per reply; replies follow one another until the idle window is over. */
const REPLY_CHUNKS = 2_000;
const WARMUP_CHUNKS = 200;
/** After the pass ended, before the idle window: the checkpoint worker's scrub of the WAL. */
const SETTLE_MS = 2_000;
/** The idle window is as long as the pass was, and at least this. */
const MIN_IDLE_MS = 10_000;
const POLL_MS = 50;
const HARNESS_READY_MS = 15_000;
const TURN_TIMEOUT_MS = 60_000;
/** How long after its due time the pass may take to start and end before the measurement gives up. */
const PASS_TIMEOUT_MS = 180_000;
const MiB = 1024 * 1024;

interface Backlog {
  turns: number;
  syncWrites: number;
  events: number;
  seconds: number;
}

/**
 * The first start: retention at its default (30 days), so nothing is removed while the backlog is
 * written. Echo turns in BACKLOG_SESSIONS sessions and sync writes from SYNC_WRITERS connections at
 * once, then sync writes until the cursor reaches BACKLOG_EVENTS.
 */
async function buildBacklog(atrium: DataDirServer): Promise<Backlog> {
  const { call } = atrium;
  const started = performance.now();
  await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), "echo", HARNESS_READY_MS);
  const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true });
  const turns = Math.floor(BACKLOG_EVENTS / EVENTS_PER_BACKLOG_TURN);
  let syncWrites = 0;
  const syncWrite = async () => {
    const index = syncWrites++;
    const entry = { key: `k${index % SYNC_KEYS}`, value: index, timestamp: { wallMs: 1_000_000 + index, counter: 0, deviceId: "bench" } };
    await call(200, "PUT", "/v1/sync/bench", { entries: [entry] });
  };
  const watcher = await CompletionWatcher.open(atrium.server.url, atrium.token);
  try {
    let turnsStarted = 0;
    const turnsDone = Promise.all(
      Array.from({ length: BACKLOG_SESSIONS }, async (_, index) => {
        const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: `Backlog ${index}` });
        while (turnsStarted < turns) {
          turnsStarted++;
          const done = watcher.next(session.id);
          await call(201, "POST", `/v1/sessions/${session.id}/prompts`, { text: "/long 1000" });
          await withTimeout(done, TURN_TIMEOUT_MS, `a backlog reply did not complete within ${TURN_TIMEOUT_MS} ms`);
        }
      }),
    );
    let turnsFinished = false;
    void turnsDone.finally(() => (turnsFinished = true)).catch(() => undefined);
    // Sync writes alongside the turns, then on until the cursor reaches the backlog's size.
    await Promise.all(
      Array.from({ length: SYNC_WRITERS }, async () => {
        while (!turnsFinished) await syncWrite();
      }),
    );
    await turnsDone;
    for (let { cursor } = await logPosition(call); cursor < BACKLOG_EVENTS; { cursor } = await logPosition(call)) {
      const missing = BACKLOG_EVENTS - cursor;
      await Promise.all(
        Array.from({ length: SYNC_WRITERS }, async (_, writer) => {
          for (let index = writer; index < missing; index += SYNC_WRITERS) await syncWrite();
        }),
      );
    }
  } finally {
    watcher.close();
  }
  return { turns, syncWrites, events: (await logPosition(call)).cursor, seconds: (performance.now() - started) / 1000 };
}

/** The log's horizon as the poller saw it, with the server's CPU time then. */
interface PollSample {
  at: number;
  horizon: number;
  cursor: number;
  serverCpuSeconds: number;
}

function startPoller(call: ApiCall, serverPid: number): { samples: PollSample[]; stop(): Promise<void> } {
  const samples: PollSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const position = await logPosition(call);
      samples.push({ at: wallMs(), ...position, serverCpuSeconds: cpuSeconds(serverPid) });
      await Bun.sleep(POLL_MS);
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await loop;
    },
  };
}

/** One chunk of a measured reply: when the agent sent it, and how long until the SSE client had it. */
interface ChunkLag {
  sentAt: number;
  lagMs: number;
}

/**
 * The chunks of one reply, read off its deltas: each is `<index>@<wall ms sent>` padded with dots,
 * and its lag is from that stamp to the arrival of the delta that brought its last character.
 */
function chunkLags(reader: EventStreamReader, itemId: string, from: number): { lags: ChunkLag[]; problem?: string } {
  const deltas = deltasOf(reader, itemId, from);
  const text = deltas.map((delta) => delta.text).join("");
  const lags: ChunkLag[] = [];
  let deltaIndex = 0;
  let deltaEnd = deltas[0]?.text.length ?? 0;
  let offset = 0;
  for (const line of text.split("\n")) {
    if (line === "" && offset === text.length) break;
    offset += line.length + 1;
    const match = /^(\d+)@(\d+\.\d+)\.*$/.exec(line);
    if (!match || Number(match[1]) !== lags.length) return { lags, problem: `chunk ${lags.length} reads ${JSON.stringify(line.slice(0, 40))}` };
    while (deltaEnd < offset && deltaIndex < deltas.length - 1) deltaEnd += deltas[++deltaIndex]!.text.length;
    lags.push({ sentAt: Number(match[2]), lagMs: deltas[deltaIndex]!.receivedAt - Number(match[2]) });
  }
  return { lags };
}

/** A reply of `chunks` stamped chunks at RATE; resolves with its chunks' lags once it completed. */
async function pacedReply(call: ApiCall, reader: EventStreamReader, sessionId: string, chunks: number): Promise<ChunkLag[]> {
  const from = reader.events.length;
  await call(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text: `stream count=${chunks} size=${CHUNK_SIZE} rate=${RATE} stamp=1` });
  let itemId: string | undefined;
  const done = () => {
    itemId ??= replyItemId(reader, sessionId, from);
    return itemId !== undefined && completionOf(reader, itemId, from) !== undefined;
  };
  await reader.until(done, TURN_TIMEOUT_MS, "the end of a paced reply");
  const { lags, problem } = chunkLags(reader, itemId!, from);
  if (problem) throw new Error(`a paced reply came out wrong: ${problem}`);
  if (lags.length !== chunks) throw new Error(`a paced reply had ${lags.length} of ${chunks} chunks`);
  return lags;
}

/** The server's line at the end of a pass that removed something. */
interface PassLine {
  endedAt: number;
  removed: number;
  horizon: number;
}

function passLine(home: string, since: number): PassLine | undefined {
  const line = serverLogLines(home).find((candidate) => candidate.msg === "event log compacted" && Date.parse(candidate.time) >= since);
  return line ? { endedAt: Date.parse(line.time), removed: Number(line.removed), horizon: Number(line.horizon) } : undefined;
}

interface Window {
  from: number;
  to: number;
  lag: Summary;
  serverCpuPercent: number;
  horizonMoves: number;
}

/** The lags of chunks sent within [from, to], with the server's CPU and the horizon's moves meanwhile. */
function windowOf(lags: ChunkLag[], samples: PollSample[], from: number, to: number): Window {
  const inside = samples.filter((sample) => sample.at >= from && sample.at <= to);
  const first = inside[0];
  const last = inside.at(-1);
  const cpu = first && last && last.at > first.at ? ((last.serverCpuSeconds - first.serverCpuSeconds) * 1000) / (last.at - first.at) : Number.NaN;
  return {
    from,
    to,
    lag: summarize(lags.filter((lag) => lag.sentAt >= from && lag.sentAt <= to).map((lag) => lag.lagMs)),
    serverCpuPercent: cpu * 100,
    horizonMoves: inside.filter((sample, index) => index > 0 && sample.horizon !== inside[index - 1]!.horizon).length,
  };
}

/**
 * Issue 27: does a compaction pass hold up live delivery? One data dir, two starts. The first
 * (retention 30 days: nothing goes) builds a backlog of BACKLOG_EVENTS events: echo replies and sync
 * writes. The second keeps 30 s of events and compacts every 10 minutes, so its one pass starts 60 s
 * after the start and finds the whole backlog expired. Meanwhile one session of the streaming agent
 * streams stamped chunks at RATE per second, reply after reply, to one SSE client, from before the
 * pass until an idle window after it (as long as the pass, at least 10 s) is over. A chunk's lag is
 * from its stamp to the arrival of the delta that completed it; the pass runs from its due time (or
 * the last poll before the horizon moved, if earlier) to the time the server logged its end.
 */
export async function measureCompactionDelivery(binary: string): Promise<MeasurementResult> {
  const dir = tempDir("compaction");
  const home = join(dir, "home");
  const wrapper = join(dir, "streaming-agent");
  mkdirSync(home);
  writeAgentWrapper(wrapper);
  const harnesses = [{ id: HARNESS_ID, name: "Benchmark streaming agent", executable: wrapper }];
  let atrium: DataDirServer | undefined;
  let reader: EventStreamReader | undefined;
  try {
    atrium = await startOnDataDir(binary, home, { harnesses });
    const backlog = await buildBacklog(atrium);
    await atrium.stop();
    const filesBefore = databaseFiles(home);

    atrium = await startOnDataDir(binary, home, { harnesses, eventRetentionDays: RETENTION_SECONDS / DAY_SECONDS, eventCompactionMinutes: COMPACTION_MINUTES });
    const { call } = atrium;
    const passDueAt = atrium.startedAt + FIRST_PASS_MS;
    await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), HARNESS_ID, HARNESS_READY_MS);
    const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true });
    const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId: project.id, harnessId: HARNESS_ID, title: "Paced" });
    reader = await EventStreamReader.open(`${atrium.server.url}/v1/events/stream?sessionId=${session.id}`, atrium.token);
    await pacedReply(call, reader, session.id, WARMUP_CHUNKS);
    const positionBefore = await logPosition(call);
    if (wallMs() > passDueAt - 5_000) throw new Error("the server took so long to start that the pass would begin before the paced replies");

    const poller = startPoller(call, atrium.server.pid);
    const lags: ChunkLag[] = [];
    let pass: PassLine | undefined;
    let idleEnd = Number.POSITIVE_INFINITY;
    try {
      while (wallMs() < idleEnd) {
        lags.push(...(await pacedReply(call, reader, session.id, REPLY_CHUNKS)));
        pass ??= passLine(home, atrium.startedAt);
        if (pass) {
          const passMs = pass.endedAt - passDueAt;
          idleEnd = pass.endedAt + SETTLE_MS + Math.max(MIN_IDLE_MS, passMs);
        } else if (wallMs() > passDueAt + PASS_TIMEOUT_MS) {
          throw new Error(`no compaction pass ended within ${PASS_TIMEOUT_MS / 1000} s of its due time; horizon ${(await logPosition(call)).horizon}`);
        }
      }
    } finally {
      await poller.stop();
    }
    const samples = poller.samples;
    const firstMove = samples.findIndex((sample) => sample.horizon !== positionBefore.horizon);
    if (firstMove === -1 || !pass) throw new Error("the poller never saw the horizon move");
    const passStart = Math.min(passDueAt, samples[Math.max(0, firstMove - 1)]!.at);
    const before = windowOf(lags, samples, samples[0]!.at, passStart);
    const during = windowOf(lags, samples, passStart, pass.endedAt);
    const idle = windowOf(lags, samples, pass.endedAt + SETTLE_MS, idleEnd);
    const passSeconds = (pass.endedAt - passStart) / 1000;
    const health = await eventsHealth(call);
    const filesAfter = await settledDatabaseFiles(home);
    const trouble = serverTrouble(home);
    if (idle.horizonMoves > 0) throw new Error(`the horizon moved ${idle.horizonMoves} times in the idle window: it was not idle`);
    if (during.lag.count === 0 || idle.lag.count === 0)
      throw new Error(`no chunks were sent during the pass (${during.lag.count}) or the idle window (${idle.lag.count})`);

    return {
      method:
        `One data dir, two starts of the compiled server. First (default retention, nothing removed): ${backlog.turns.toLocaleString("en-US")} ` +
        `echo \`/long 1000\` turns in ${BACKLOG_SESSIONS} sessions and ${backlog.syncWrites.toLocaleString("en-US")} PUT /v1/sync writes ` +
        `(${SYNC_WRITERS} connections) make a backlog of ${backlog.events.toLocaleString("en-US")} events. Second (eventRetentionDays = ` +
        `${RETENTION_SECONDS} s, eventCompactionMinutes = ${COMPACTION_MINUTES}: one pass, ${FIRST_PASS_MS / 1000} s after the start): one ` +
        `session of bench/workers/streaming-agent.ts streams replies of ${REPLY_CHUNKS.toLocaleString("en-US")} stamped ${CHUNK_SIZE}-character ` +
        `chunks at ${RATE.toLocaleString("en-US")}/s, one after another, to one SSE client on the session, from before the pass to the end of an idle ` +
        `window (from ${SETTLE_MS / 1000} s after the pass, as long as the pass, at least ${MIN_IDLE_MS / 1000} s); lag = the client read the last byte ` +
        `of the delta that completed a chunk - the agent stamped it; the pass runs from its due time (or the last poll of GET /v1/events/cursor, ` +
        `every ${POLL_MS} ms, before the horizon moved) to the time of the server's "event log compacted" line; ${pinning}.`,
      figures: [
        { label: "delivery lag p99 while compaction runs", value: during.lag.p99, unit: "ms" },
        { label: "delivery lag p99 idle, after the pass", value: idle.lag.p99, unit: "ms" },
        { label: "ratio p99 during compaction / idle", value: during.lag.p99 / idle.lag.p99, unit: "ratio" },
        { label: "delivery lag p50 during compaction", value: during.lag.p50, unit: "ms" },
        { label: "delivery lag p50 idle", value: idle.lag.p50, unit: "ms" },
        { label: "delivery lag max during compaction", value: during.lag.max, unit: "ms" },
        { label: "delivery lag max idle", value: idle.lag.max, unit: "ms" },
        { label: "delivery lag p99 before the pass (streaming, no compaction)", value: before.lag.p99, unit: "ms" },
        { label: "chunks sent during the pass (samples)", value: during.lag.count, unit: "events" },
        { label: "chunks sent in the idle window (samples)", value: idle.lag.count, unit: "events" },
        { label: "backlog built (events in the log at the restart)", value: backlog.events, unit: "events" },
        { label: "events the pass removed (server's log)", value: pass.removed, unit: "events" },
        { label: "compaction pass, start to end", value: rounded(passSeconds, 2), unit: "s" },
        { label: "events removed per second", value: Math.round(pass.removed / passSeconds), unit: "events" },
        { label: "server CPU busy during the pass (paced reply included)", value: during.serverCpuPercent, unit: "%" },
        { label: "server CPU busy idle (paced reply only)", value: idle.serverCpuPercent, unit: "%" },
        { label: "database on disk before (atrium.db + -wal)", value: sizeOf(filesBefore), unit: "MiB" },
        { label: "database on disk after", value: sizeOf(filesAfter), unit: "MiB" },
        { label: "building the backlog took", value: rounded(backlog.seconds, 1), unit: "s" },
        { label: "server warnings and errors in its log", value: trouble.warnings + trouble.errors, unit: "events" },
      ],
      details: {
        backlog,
        retentionSeconds: RETENTION_SECONDS,
        rate: RATE,
        chunkSize: CHUNK_SIZE,
        replyChunks: REPLY_CHUNKS,
        pass,
        passStart,
        passDueAt,
        positionBefore,
        healthAfter: health,
        before,
        during,
        idle,
        filesBefore,
        filesAfter,
        serverTrouble: trouble,
      },
    };
  } finally {
    reader?.close();
    await atrium?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds to so many decimals: the table prints them as they are. */
function rounded(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

function sizeOf(files: DatabaseFiles): number {
  return (files.db + files.wal) / MiB;
}

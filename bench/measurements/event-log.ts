/**
 * Issue 27, the bounded event log: a soak that compacts while it runs (`soak`), and live delivery
 * while one pass removes a large backlog (`compaction`). Both keep a data dir across starts and set
 * retention and compaction in config.json.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { streamingAgent } from "../lib/agents.ts";
import { type Atrium, conversationPages, inParallel, newSession, prompt, scratchProject, scratchSession } from "../lib/atrium.ts";
import { serverLogLines, serverTrouble, startAtrium, syncWrite } from "../lib/atrium.ts";
import { deltasOf, type EventStream, openReplyWaiter, replyDone, replyItemId, stampedChunkLags, wallMs } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { repeatUntilStopped, until, withTimeout } from "../lib/processes.ts";
import { below } from "../lib/report.ts";
import { ratio, summarize } from "../lib/stats.ts";

const DAY_SECONDS = 86_400;
const RETENTION_SECONDS = 30;
const MiB = 1024 * 1024;
const TURN_TIMEOUT_MS = 60_000;
/** `/long 1000` of the built-in echo agent: "chunk 0 chunk 1 … chunk 999 ", 9,890 bytes. */
const LONG_REPLY = "/long 1000";

/** atrium.db and its -wal on disk, in bytes (a file that is not there is 0: SQLite removes the WAL when it closes). */
const databaseBytes = (home: string) =>
  ["atrium.db", "atrium.db-wal"].reduce((sum, name) => sum + (statSync(join(home, name), { throwIfNoEntry: false })?.size ?? 0), 0);

/** The database's size once two readings half a second apart agree: the checkpoint worker scrubs the WAL after a pass. */
async function settledDatabaseBytes(home: string): Promise<number> {
  let last = databaseBytes(home);
  const settled = () => {
    const previous = last;
    last = databaseBytes(home);
    return last === previous ? last : undefined;
  };
  return until(settled, 30_000, "the database's size settling", 500);
}

type LogPosition = { cursor: number; horizon: number };
const logPosition = (atrium: Atrium) => atrium.call<LogPosition>(200, "GET", "/v1/events/cursor");

/** ATRIUM_SOAK_TURNS=500 for a quick trial; the measurement is 10,000. */
const SOAK_TURNS = Number(process.env.ATRIUM_SOAK_TURNS ?? 10_000);
const SOAK_SESSIONS = 200;

export const soak = measurement({
  key: "soak",
  title: "Event log soak: 10,000 turns, 200 sessions, half deleted, compacting",
  seed: {
    what: `the compiled binary keeping ${RETENTION_SECONDS} s of events, compacting every 6 s, stopping agents idle for 30 s.`,
    async run(bench) {
      const home = bench.tempDir("soak");
      const config = { eventRetentionDays: RETENTION_SECONDS / DAY_SECONDS, eventCompactionMinutes: 0.1, agentIdleMinutes: 0.5 };
      return { atrium: await bench.atrium({ home, config, harness: "echo" }), home };
    },
  },
  action: {
    what:
      `${SOAK_TURNS.toLocaleString("en-US")} turns of the echo agent (\`${LONG_REPLY}\`, 9,890 bytes each) over ${SOAK_SESSIONS} ` +
      "sessions, 8 sessions at a time (a session's turns one after another, each waited for on a stream of completions), every " +
      "other session deleted when its turns are done; the database's size read every second; then until the horizon passes the " +
      "last turn's cursor and the database's size settles.",
    async run({ atrium, home }) {
      const projectId = await scratchProject(atrium);
      const replies = await openReplyWaiter(atrium.url, atrium.token);
      const turnMs: number[] = [];
      const live: string[] = [];
      let peakBytes = 0;
      const stopSampling = repeatUntilStopped(() => (peakBytes = Math.max(peakBytes, databaseBytes(home))), 1_000);
      const started = performance.now();
      try {
        const sessions = Math.min(SOAK_SESSIONS, SOAK_TURNS);
        await inParallel(sessions, async (index) => {
          const sessionId = await newSession(atrium, projectId, "echo", `Soak ${index}`);
          const turns = Math.floor(SOAK_TURNS / sessions) + (index < SOAK_TURNS % sessions ? 1 : 0);
          for (let turn = 0; turn < turns; turn++) {
            const turnStarted = performance.now();
            const done = replies.next(sessionId);
            await prompt(atrium, sessionId, LONG_REPLY);
            await withTimeout(done, TURN_TIMEOUT_MS, `turn ${turn} of session ${index} did not complete within ${TURN_TIMEOUT_MS} ms`);
            turnMs.push(performance.now() - turnStarted);
          }
          if (index % 2 === 1) await atrium.call(200, "DELETE", `/v1/sessions/${sessionId}`);
          else live.push(sessionId);
        });
      } finally {
        await stopSampling();
        replies.close();
      }
      const turnsSeconds = (performance.now() - started) / 1000;
      const bytesAtLastTurn = databaseBytes(home);
      const { cursor } = await logPosition(atrium);
      await until(
        async () => ((await logPosition(atrium)).horizon >= cursor ? true : undefined),
        (RETENTION_SECONDS + 6) * 1000 + 120_000,
        "compaction passing the last turn",
        250,
      );
      const bytesAfterCompaction = await settledDatabaseBytes(home);
      let textBytes = 0;
      for (const id of live) {
        for await (const page of conversationPages(atrium, id)) textBytes += page.conversation.reduce((sum, item) => sum + Buffer.byteLength(item.text), 0);
      }
      return {
        turns: summarize(turnMs),
        turnsSeconds,
        bytesAtLastTurn,
        peakBytes: Math.max(peakBytes, bytesAtLastTurn),
        bytesAfterCompaction,
        textBytes,
        troubles: serverTrouble(home),
      };
    },
  },
  baseline: { what: "the conversation text the live sessions still hold, read back through the API (issue 27: the database within 1.5 bytes a byte of it)." },
  rounds: { warmup: 0, measured: 1 },
  figures: ({ action: [soak] }) => [
    {
      label: "database on disk (atrium.db + -wal) per byte of conversation text kept",
      value: ratio(soak!.bytesAfterCompaction, soak!.textBytes),
      unit: "ratio",
      target: below(1.5),
    },
    { label: "database on disk, after compaction", value: soak!.bytesAfterCompaction / MiB, unit: "MiB" },
    { label: "conversation text of the live sessions (UTF-8, via the API)", value: soak!.textBytes / MiB, unit: "MiB" },
    { label: "database on disk at the last turn", value: soak!.bytesAtLastTurn / MiB, unit: "MiB" },
    { label: "database on disk, largest seen during the soak", value: soak!.peakBytes / MiB, unit: "MiB" },
    { label: "turns per second", value: SOAK_TURNS / soak!.turnsSeconds, unit: "turns/s" },
    { label: "turn, prompt to completed reply, p50", value: soak!.turns.p50, unit: "ms" },
    { label: "turn p99", value: soak!.turns.p99, unit: "ms" },
    { label: "server warnings and errors in its log", value: soak!.troubles, unit: "count" },
  ],
});

/** ATRIUM_COMPACTION_EVENTS=20000 for a quick trial; the measurement builds a backlog of 100,000. */
const BACKLOG_EVENTS = Number(process.env.ATRIUM_COMPACTION_EVENTS ?? 100_000);
/** The second start's one pass runs 60 s after it (min(60 s, interval)); the next long after the measurement ends. */
const FIRST_PASS_MS = 60_000;
/** The measured replies: stamped chunks at a fast model's pace, two seconds each, one after another. */
const RATE = 1_000;
const REPLY_CHUNKS = 2_000;
/** After the pass ended, before the idle window: the checkpoint worker's scrub of the WAL. */
const SETTLE_MS = 2_000;
/** The idle window is as long as the pass was, and at least this. */
const MIN_IDLE_MS = 10_000;

/**
 * The first start, with the default retention (nothing removed): echo `/long 1000` turns (about 11
 * events each, whose deltas a pass folds into their rows) in 8 sessions, one turn per 100 events of
 * the backlog, with sync writes (one `sync.changed` each) on 8 connections alongside and after them
 * until the log holds BACKLOG_EVENTS.
 */
async function buildBacklog(atrium: Atrium): Promise<number> {
  const projectId = await scratchProject(atrium);
  const replies = await openReplyWaiter(atrium.url, atrium.token);
  let writes = 0;
  // Keys go round 16: a PUT answers with the whole namespace, so it stays small.
  const write = (sequence = writes++) => atrium.call(200, "PUT", "/v1/sync/bench", syncWrite(sequence, `k${sequence % 16}`));
  try {
    let turns = Math.floor(BACKLOG_EVENTS / 100);
    let turnsDone = false;
    const turning = inParallel(8, async (index) => {
      const sessionId = await newSession(atrium, projectId, "echo", `Backlog ${index}`);
      while (turns-- > 0) {
        const done = replies.next(sessionId);
        await prompt(atrium, sessionId, LONG_REPLY);
        await withTimeout(done, TURN_TIMEOUT_MS, "a backlog reply");
      }
    }).finally(() => (turnsDone = true));
    // Awaited below, once the sync writes are done.
    turning.catch(() => undefined);
    await inParallel(8, async () => {
      while (!turnsDone || (await logPosition(atrium)).cursor < BACKLOG_EVENTS) await write();
    });
    await turning;
  } finally {
    replies.close();
  }
  return (await logPosition(atrium)).cursor;
}

type PollSample = LogPosition & { at: number };

/** The lags of chunks sent within [from, to], with the horizon's moves meanwhile. */
function windowOf(lags: { sentAt: number; lagMs: number }[], samples: PollSample[], from: number, to: number) {
  const inside = samples.filter((sample) => sample.at >= from && sample.at <= to);
  return {
    lag: summarize(lags.filter((lag) => lag.sentAt >= from && lag.sentAt <= to).map((lag) => lag.lagMs)),
    horizonMoves: inside.filter((sample, index) => index > 0 && sample.horizon !== inside[index - 1]!.horizon).length,
  };
}

/** A reply of `chunks` stamped chunks at RATE, once complete: its chunks' send times and lags. */
async function pacedReply({ atrium, events, sessionId }: { atrium: Atrium; events: EventStream; sessionId: string }, chunks: number) {
  const from = events.events.length;
  await prompt(atrium, sessionId, `stream count=${chunks} size=50 rate=${RATE} stamp=1`);
  await events.until(() => replyDone(events, sessionId, from), TURN_TIMEOUT_MS, "the end of a paced reply");
  const { lags, problem } = stampedChunkLags(deltasOf(events, replyItemId(events, sessionId, from)!, from));
  if (problem || lags.length !== chunks) throw new Error(`a paced reply came out wrong: ${problem ?? `${lags.length} of ${chunks} chunks`}`);
  return lags;
}

export const compaction = measurement({
  key: "compaction",
  title: "Event delivery while compaction removes a 100,000-event backlog, vs idle",
  seed: {
    what:
      `one data dir, two starts. The first (default retention) makes a backlog of ${BACKLOG_EVENTS.toLocaleString("en-US")} events: ` +
      "echo `/long 1000` turns in 8 sessions and PUT /v1/sync writes on 8 connections. The second keeps " +
      `${RETENTION_SECONDS} s of events and compacts every 10 minutes: its one pass, ${FIRST_PASS_MS / 1000} s after the start, finds ` +
      "the whole backlog expired; one session of bench/workers/streaming-agent.ts with one SSE client on it.",
    async run(bench) {
      const home = bench.tempDir("compaction");
      const agent = streamingAgent(bench.tempDir("compaction-agent"));
      const first = await startAtrium(bench.binary, { home, agent, harness: "echo" });
      const backlogEvents = await buildBacklog(first).finally(() => first.stop());
      const atrium = await bench.atrium({ home, agent, config: { eventRetentionDays: RETENTION_SECONDS / DAY_SECONDS, eventCompactionMinutes: 10 } });
      const sessionId = await scratchSession(atrium, agent.harness, "Paced");
      const events = await atrium.events(`?sessionId=${sessionId}`);
      bench.defer(() => events.close());
      const world = { atrium, home, events, sessionId, backlogEvents };
      await pacedReply(world, 200);
      if (wallMs() > atrium.startedAt + FIRST_PASS_MS - 5_000)
        throw new Error("the server took so long to start that the pass would begin before the paced replies");
      return world;
    },
  },
  action: {
    what:
      `replies of ${REPLY_CHUNKS.toLocaleString("en-US")} stamped 50-character chunks at ${RATE.toLocaleString("en-US")}/s, one after ` +
      "another, from before the pass to the end of an idle window after it; lag = the client read the delta that completed a chunk - " +
      "the agent stamped it; the pass runs from its due time (or the last poll of GET /v1/events/cursor, every 50 ms, before the " +
      'horizon moved) to the time of the server\'s "event log compacted" line.',
    async run(world) {
      const { atrium, home } = world;
      const passDueAt = atrium.startedAt + FIRST_PASS_MS;
      const horizonBefore = (await logPosition(atrium)).horizon;
      const samples: PollSample[] = [];
      const stopPolling = repeatUntilStopped(async () => samples.push({ at: wallMs(), ...(await logPosition(atrium)) }), 50);
      const lags: { sentAt: number; lagMs: number }[] = [];
      let pass: { endedAt: number; removed: number } | undefined;
      let idleEnd = Number.POSITIVE_INFINITY;
      try {
        while (wallMs() < idleEnd) {
          lags.push(...(await pacedReply(world, REPLY_CHUNKS)));
          const line = pass
            ? undefined
            : serverLogLines(home).find((candidate) => candidate.msg === "event log compacted" && Date.parse(candidate.time) >= atrium.startedAt);
          if (line) pass = { endedAt: Date.parse(line.time), removed: Number(line.removed) };
          if (pass) idleEnd = pass.endedAt + SETTLE_MS + Math.max(MIN_IDLE_MS, pass.endedAt - passDueAt);
          else if (wallMs() > passDueAt + 180_000) throw new Error("no compaction pass ended within 180 s of its due time");
        }
      } finally {
        await stopPolling();
      }
      const firstMove = samples.findIndex((sample) => sample.horizon !== horizonBefore);
      if (firstMove === -1 || !pass) throw new Error("the poller never saw the horizon move");
      const passStart = Math.min(passDueAt, samples[Math.max(0, firstMove - 1)]!.at);
      const idle = windowOf(lags, samples, pass.endedAt + SETTLE_MS, idleEnd);
      const during = windowOf(lags, samples, passStart, pass.endedAt);
      if (idle.horizonMoves > 0) throw new Error(`the horizon moved ${idle.horizonMoves} times in the idle window: it was not idle`);
      if (during.lag.count === 0 || idle.lag.count === 0)
        throw new Error(`no chunks were sent during the pass (${during.lag.count}) or the idle window (${idle.lag.count})`);
      return {
        before: windowOf(lags, samples, samples[0]!.at, passStart),
        during,
        idle,
        removed: pass.removed,
        seconds: (pass.endedAt - passStart) / 1000,
        troubles: serverTrouble(home),
      };
    },
  },
  baseline: {
    what: `the same replies in the idle window after the pass (from ${SETTLE_MS / 1000} s after it, as long as it, at least ${MIN_IDLE_MS / 1000} s).`,
  },
  rounds: { warmup: 0, measured: 1 },
  figures: ({ action: [pass] }, world) => [
    { label: "delivery lag p99 while compaction runs", value: pass!.during.lag.p99, unit: "ms" },
    { label: "delivery lag p99 idle, after the pass", value: pass!.idle.lag.p99, unit: "ms" },
    { label: "ratio p99 during compaction / idle", value: ratio(pass!.during.lag.p99, pass!.idle.lag.p99), unit: "ratio" },
    { label: "delivery lag p50 during compaction", value: pass!.during.lag.p50, unit: "ms" },
    { label: "delivery lag p50 idle", value: pass!.idle.lag.p50, unit: "ms" },
    { label: "delivery lag max during compaction", value: pass!.during.lag.max, unit: "ms" },
    { label: "delivery lag max idle", value: pass!.idle.lag.max, unit: "ms" },
    { label: "delivery lag p99 before the pass (streaming, no compaction)", value: pass!.before.lag.p99, unit: "ms" },
    { label: "chunks sent during the pass (samples)", value: pass!.during.lag.count, unit: "count" },
    { label: "chunks sent in the idle window (samples)", value: pass!.idle.lag.count, unit: "count" },
    { label: "backlog built (events in the log at the restart)", value: world.backlogEvents, unit: "count" },
    { label: "events the pass removed (server's log)", value: pass!.removed, unit: "count" },
    { label: "compaction pass, start to end", value: pass!.seconds, unit: "s" },
    { label: "events removed per second", value: pass!.removed / pass!.seconds, unit: "events/s" },
    { label: "server warnings and errors in its log", value: pass!.troubles, unit: "count" },
  ],
});

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ApiCall } from "../lib/api.ts";
import { awaitHarnessReady, type HarnessReadiness } from "../lib/harness-ready.ts";
import { pinning, tempDir, withTimeout } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { summarize } from "../lib/stats.ts";
import type { DetailView } from "./session-common.ts";
import {
  DAY_SECONDS,
  checkReplay,
  eventsHealth,
  logPosition,
  replayViolated,
  serverTrouble,
  settledDatabaseFiles,
  databaseFiles,
  startOnDataDir,
  CompletionWatcher,
  type DataDirServer,
  type EventsHealth,
  type ReplayCheck,
} from "./event-log-common.ts";

/** ATRIUM_SOAK_TURNS=500 for a quick trial; the measurement is 10,000. */
const TURNS = Number(process.env.ATRIUM_SOAK_TURNS ?? 10_000);
const SESSIONS = 200;
/** Sessions taking their turns at once: each session's turns follow one another, as a user's do. */
const CONCURRENCY = 8;
/** `/long 1000` of the built-in echo agent: "chunk 0 chunk 1 … chunk 999 ", 9,890 bytes. */
const LONG_CHUNKS = 1_000;
const REPLY = Array.from({ length: LONG_CHUNKS }, (_, index) => `chunk ${index} `).join("");
const RETENTION_SECONDS = 30;
/** A pass every 6 s; the first one 6 s after the start. */
const COMPACTION_MINUTES = 0.1;
/** Agents of sessions done with their turns stop soon, so that 100 idle ones do not pile up on the server's CPU. */
const AGENT_IDLE_MINUTES = 0.5;
/** Issue 27: what the database takes on disk, per byte of conversation text the live sessions hold. */
const TARGET_BYTES_PER_TEXT_BYTE = 1.5;
const HARNESS_READY_MS = 15_000;
const TURN_TIMEOUT_MS = 60_000;
const REPLAY_TIMEOUT_MS = 120_000;
/** Past the retention and one compaction interval, how long the passes may take to catch up. */
const CATCH_UP_SLACK_MS = 120_000;
const SAMPLE_MS = 1_000;
const DETAIL_PAGE = 200;
const MiB = 1024 * 1024;

/** The log and the database while the soak runs, once a second. */
interface Sample {
  atSeconds: number;
  cursor: number;
  horizon: number;
  databaseBytes: number;
  compactionError?: string;
}

function startSampler(atrium: DataDirServer, home: string, started: number): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const events: EventsHealth = await eventsHealth(atrium.call);
      const files = databaseFiles(home);
      samples.push({
        atSeconds: (performance.now() - started) / 1000,
        cursor: events.cursor,
        horizon: events.horizon,
        databaseBytes: files.db + files.wal,
        ...(events.compactionError ? { compactionError: events.compactionError } : {}),
      });
      await Bun.sleep(SAMPLE_MS);
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

/** Every conversation item of a session, paged back with `before` from the newest page. */
async function conversationOf(call: ApiCall, sessionId: string): Promise<DetailView["conversation"]> {
  const items: DetailView["conversation"] = [];
  let before: string | null = null;
  for (;;) {
    const query: string = `?limit=${DETAIL_PAGE}${before ? `&before=${encodeURIComponent(before)}` : ""}`;
    const page: DetailView = await call<DetailView>(200, "GET", `/v1/sessions/${sessionId}${query}`);
    items.unshift(...page.conversation);
    if (!page.hasMore || !page.nextBefore) return items;
    before = page.nextBefore;
  }
}

interface SessionPlan {
  index: number;
  turns: number;
  /** Half of the sessions are deleted once their turns are done, so the deletions spread over the run. */
  deleted: boolean;
}

/** TURNS over min(SESSIONS, TURNS) sessions, as evenly as they go; every other session is deleted at its end. */
function planSessions(): SessionPlan[] {
  const count = Math.min(SESSIONS, TURNS);
  return Array.from({ length: count }, (_, index) => ({
    index,
    turns: Math.floor(TURNS / count) + (index < TURNS % count ? 1 : 0),
    deleted: index % 2 === 1,
  }));
}

/**
 * Issue 27's soak: TURNS turns of the built-in echo agent (`/long 1000`, a 9.9 KB reply each) over
 * SESSIONS sessions, CONCURRENCY sessions at a time, every other session deleted once its turns are
 * done, on a server that keeps 30 s of events and compacts every 6 s. Then it waits until compaction
 * has passed every event of the soak, and reads what is left: the database on disk against the
 * conversation text the live sessions still hold (read back through the API, every reply checked
 * against what the agent sent), and a replay from cursor 0, which must hold nothing at or below the
 * horizon and nothing of a deleted session (checked too right after the last turn, while the log
 * still held the last 30 s).
 */
export async function measureEventSoak(binary: string): Promise<MeasurementResult> {
  const dir = tempDir("soak");
  const home = join(dir, "home");
  mkdirSync(home);
  let atrium: DataDirServer | undefined;
  let watcher: CompletionWatcher | undefined;
  try {
    atrium = await startOnDataDir(binary, home, {
      eventRetentionDays: RETENTION_SECONDS / DAY_SECONDS,
      eventCompactionMinutes: COMPACTION_MINUTES,
      agentIdleMinutes: AGENT_IDLE_MINUTES,
    });
    const { call, server, token } = atrium;
    await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), "echo", HARNESS_READY_MS);
    watcher = await CompletionWatcher.open(server.url, token);
    const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true });

    const plans = planSessions();
    const live: string[] = [];
    const deleted = new Set<string>();
    const turnMs: number[] = [];
    let repliesIntact = 0;
    let replyBytes = 0;
    let nextPlan = 0;
    const started = performance.now();
    const sampler = startSampler(atrium, home, started);
    const runSession = async (plan: SessionPlan) => {
      const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: `Soak ${plan.index}` });
      for (let turn = 0; turn < plan.turns; turn++) {
        const turnStarted = performance.now();
        const done = watcher!.next(session.id);
        await call(201, "POST", `/v1/sessions/${session.id}/prompts`, { text: `/long ${LONG_CHUNKS}` });
        const text = await withTimeout(done, TURN_TIMEOUT_MS, `turn ${turn} of session ${plan.index} did not complete within ${TURN_TIMEOUT_MS} ms`);
        turnMs.push(performance.now() - turnStarted);
        replyBytes += Buffer.byteLength(text);
        if (text === REPLY) repliesIntact++;
      }
      if (plan.deleted) {
        await call(200, "DELETE", `/v1/sessions/${session.id}`);
        deleted.add(session.id);
      } else {
        live.push(session.id);
      }
    };
    try {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (nextPlan < plans.length) await runSession(plans[nextPlan++]!);
        }),
      );
    } finally {
      await sampler.stop();
    }
    const turnsSeconds = (performance.now() - started) / 1000;
    const atEnd = await logPosition(call);
    const filesAtEnd = databaseFiles(home);

    // The last 30 s of the soak are still in the log: the deleted sessions' events must not be.
    const replayAtEnd = await checkReplay(server.url, token, call, deleted, REPLAY_TIMEOUT_MS);

    // Then every event of the soak ages past the retention and a pass removes it.
    const waitStarted = performance.now();
    const catchUpMs = (RETENTION_SECONDS + COMPACTION_MINUTES * 60) * 1000 + CATCH_UP_SLACK_MS;
    let health = await eventsHealth(call);
    while (health.horizon < atEnd.cursor) {
      if (performance.now() - waitStarted > catchUpMs) {
        throw new Error(
          `the horizon reached ${health.horizon} of ${atEnd.cursor} within ${catchUpMs / 1000} s of the last turn${health.compactionError ? `: ${health.compactionError}` : ""}`,
        );
      }
      await Bun.sleep(250);
      health = await eventsHealth(call);
    }
    const caughtUpSeconds = (performance.now() - waitStarted) / 1000;
    const files = await settledDatabaseFiles(home);
    const replay = await checkReplay(server.url, token, call, deleted, REPLAY_TIMEOUT_MS);

    // What the live sessions hold, read back through the API: every reply must still be whole.
    let textBytes = 0;
    let liveReplies = 0;
    let liveRepliesIntact = 0;
    for (const id of live) {
      for (const item of await conversationOf(call, id)) {
        textBytes += Buffer.byteLength(item.text);
        if (item.role !== "assistant") continue;
        liveReplies++;
        if (item.text === REPLY) liveRepliesIntact++;
      }
    }
    const expectedLiveReplies = plans.filter((plan) => !plan.deleted).reduce((sum, plan) => sum + plan.turns, 0);
    const totalSeconds = (performance.now() - started) / 1000;
    const diskBytes = files.db + files.wal;
    const samples = sampler.samples;
    const horizons = new Set(samples.map((sample) => sample.horizon));
    const peakBytes = Math.max(...samples.map((sample) => sample.databaseBytes), filesAtEnd.db + filesAtEnd.wal);
    const compactionErrors = [...new Set(samples.flatMap((sample) => (sample.compactionError ? [sample.compactionError] : [])))];
    if (health.compactionError) compactionErrors.push(health.compactionError);
    const trouble = serverTrouble(home);
    const turnSummary = summarize(turnMs);

    for (const [name, check] of [
      ["right after the last turn", replayAtEnd],
      ["once compaction had passed the soak", replay],
    ] as const) {
      if (replayViolated(check)) {
        throw new Error(
          `the replay from cursor 0 ${name} served events the log no longer keeps: ${check.atOrBelowHorizon} at or below the horizon ` +
            `${check.horizonBefore}, ${check.ofDeletedSessions} of deleted sessions, ${check.outOfOrder} out of order; ${check.violations.join("; ")}`,
        );
      }
    }
    const replayFigures = (check: ReplayCheck, when: string) => [
      { label: `replay from 0 ${when}: events (horizon ${check.horizonBefore}, cursor ${check.cursorBefore})`, value: check.events, unit: "events" as const },
      {
        label: `replay ${when}: events at or below the horizon`,
        value: check.atOrBelowHorizon,
        unit: "events" as const,
        target: { comparison: "<" as const, value: 1 },
      },
      {
        label: `replay ${when}: events of deleted sessions (their session.deleted aside)`,
        value: check.ofDeletedSessions,
        unit: "events" as const,
        target: { comparison: "<" as const, value: 1 },
      },
      { label: `replay ${when}: session.deleted notices of deleted sessions`, value: check.deletionNotices, unit: "events" as const },
    ];

    return {
      method:
        `${TURNS.toLocaleString("en-US")} turns of the built-in echo agent (\`/long ${LONG_CHUNKS}\`, ${REPLY.length.toLocaleString("en-US")} bytes each) ` +
        `over ${plans.length} sessions in one scratch project, ${CONCURRENCY} sessions at a time (a session's turns one after another, each ` +
        `waited for on an SSE stream of completions), every other session deleted when its turns were done; config.json: ` +
        `eventRetentionDays = ${RETENTION_SECONDS} s, eventCompactionMinutes = ${COMPACTION_MINUTES}, agentIdleMinutes = ${AGENT_IDLE_MINUTES}. ` +
        `Then it waits until the horizon passes the cursor of the last turn, for atrium.db and -wal to stop changing, and reads the live ` +
        `sessions' conversations through GET /v1/sessions/{id} (pages of ${DETAIL_PAGE}); the replays read GET /v1/events/stream?after=0 ` +
        `up to the cursor read before them. The agents run as the server's children on its CPU; ${pinning}.`,
      figures: [
        {
          label: "database on disk (atrium.db + -wal) per byte of conversation text kept",
          value: diskBytes / textBytes,
          unit: "ratio",
          target: { comparison: "<", value: TARGET_BYTES_PER_TEXT_BYTE },
        },
        { label: "database on disk, after compaction", value: diskBytes / MiB, unit: "MiB" },
        { label: "conversation text of the live sessions (UTF-8, via the API)", value: textBytes / MiB, unit: "MiB" },
        { label: "database on disk at the last turn", value: (filesAtEnd.db + filesAtEnd.wal) / MiB, unit: "MiB" },
        { label: "database on disk, largest seen during the soak", value: peakBytes / MiB, unit: "MiB" },
        { label: "live sessions' replies read back whole", value: liveRepliesIntact, unit: "items", target: { comparison: ">=", value: expectedLiveReplies } },
        { label: "replies completed whole on the stream", value: repliesIntact, unit: "items", target: { comparison: ">=", value: TURNS } },
        ...replayFigures(replayAtEnd, "after the last turn"),
        ...replayFigures(replay, "after compaction"),
        { label: "turns, first prompt to last reply", value: rounded(turnsSeconds, 1), unit: "s" },
        { label: "turns per second", value: rounded(TURNS / turnsSeconds, 1), unit: "turns/s" },
        { label: "turn, prompt to completed reply, p50", value: turnSummary.p50, unit: "ms" },
        { label: "turn p99", value: turnSummary.p99, unit: "ms" },
        { label: "last turn until the horizon passed it", value: rounded(caughtUpSeconds, 1), unit: "s" },
        { label: "whole soak, first prompt to the last check", value: rounded(totalSeconds, 1), unit: "s" },
        { label: "distinct horizons seen (about one per pass that removed something)", value: horizons.size, unit: "runs" },
        { label: "server warnings and errors in its log", value: trouble.warnings + trouble.errors, unit: "events" },
      ],
      details: {
        turns: TURNS,
        sessions: plans.length,
        concurrency: CONCURRENCY,
        replyBytes: REPLY.length,
        retentionSeconds: RETENTION_SECONDS,
        compactionMinutes: COMPACTION_MINUTES,
        liveSessions: live.length,
        deletedSessions: deleted.size,
        liveReplies,
        expectedLiveReplies,
        streamedReplyBytes: replyBytes,
        textBytes,
        filesAfterCompaction: files,
        filesAtLastTurn: filesAtEnd,
        logAtLastTurn: atEnd,
        logAfterCompaction: { cursor: health.cursor, horizon: health.horizon },
        turnMs: turnSummary,
        replayAtEnd,
        replay,
        compactionErrors,
        serverTrouble: trouble,
        samples: samples.filter((_, index) => index % 5 === 0),
      },
    };
  } finally {
    watcher?.close();
    await atrium?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds and rates to so many decimals: the table prints them as they are. */
function rounded(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

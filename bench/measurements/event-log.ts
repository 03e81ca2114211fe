/**
 * Issue 27, the bounded event log: a soak that compacts while it runs, retention and compaction set in
 * config.json. (`compaction`, live delivery while one pass removes a large backlog, was retired in issue 34.)
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Atrium, conversationPages, inParallel, newSession, prompt, scratchProject, serverTrouble } from "../lib/atrium.ts";
import { openReplyWaiter } from "../lib/events.ts";
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

const logPosition = (atrium: Atrium) => atrium.call<{ cursor: number; horizon: number }>(200, "GET", "/v1/events/cursor");

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

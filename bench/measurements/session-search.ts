/**
 * Searching every word (issue 35): `GET /v1/sessions?q=` over many long conversations, the full-text index's size
 * against the text, and what keeping it in step costs a stored reply. The full size is about 1 GB of text, minutes to
 * write on 2 cores, so the written data dir is kept in a cache (SEED_CACHE) for the next run with the same size, seed and schema.
 */
import { Database } from "bun:sqlite";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nextLink, scratchProject, startAtrium, type Atrium } from "../lib/atrium.ts";
import { ConversationText } from "../lib/conversation-text.ts";
import { measurement, type Bench } from "../lib/measurement.ts";
import { below } from "../lib/report.ts";
import { median, medianOf, summarize, type Summary } from "../lib/stats.ts";
import { Store } from "../../src/store/database.ts";
import { latestSchemaVersion, migrate } from "../../src/store/migrations.ts";
import { ConversationRepository } from "../../src/store/conversation-repository.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { SessionRepository } from "../../src/store/session-repository.ts";
import { EventLog } from "../../src/events/event-log.ts";
import { SessionEvents, type ConversationItem } from "../../src/schemas/sessions.ts";
import { casingOf } from "./lists.ts";

const SESSIONS = Number(process.env.BENCH_SEARCH_SESSIONS ?? 5_000);
const TEXT_BYTES = Number(process.env.BENCH_SEARCH_KB ?? 200) * 1024;
const SEED = 35;
/** Searches a round makes of each kind of word. */
const SEARCHES = 100;
/** Replies a round stores, each streamed as deltas of 64 characters, with the index and without. */
const REPLIES = 100;
const REPLY_BYTES = 8 * 1024;
const DELTA_CHARS = 64;
/**
 * Written data dirs, one per size, seed and schema version (a new migration may change what the index
 * holds, so it writes again); delete the folder to write them again.
 */
const SEED_CACHE = join(tmpdir(), "atrium-bench-cache", `search-${SESSIONS}x${TEXT_BYTES / 1024}kb-seed${SEED}-schema${latestSchemaVersion}`);
/** In the cache once its data dir is complete: the seconds writing it took. */
const SEED_DONE = join(SEED_CACHE, "seeded.json");

/** Words by how often they are said (their rank in the vocabulary's Zipf order), at least 7 letters so that 128 casings exist. */
const WORD_RANKS = { common: 40, typical: 1_000, rare: 20_000 } as const;
type WordKind = keyof typeof WORD_RANKS;

/** A finished item of the conversation, as the store holds it. */
const item = (id: string, role: "user" | "assistant", text: string, createdAt: string, isGenerating = false): ConversationItem => ({
  id,
  role,
  messageId: null,
  text,
  createdAt,
  isGenerating,
  attachments: [],
  stopReason: role === "user" || isGenerating ? null : "end_turn",
});

/** A project and a session made through the API: the record every generated session copies. */
async function templateSession(bench: Bench, home: string): Promise<string> {
  const atrium = await startAtrium(bench.binary, { home });
  try {
    const projectId = await scratchProject(atrium, "Search bench");
    return (await atrium.call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: "echo" })).id;
  } finally {
    await atrium.stop();
  }
}

/**
 * Sessions whose conversations are prompts (200–700 B) and replies (1–12 KB) until each holds its share
 * of text, written through the store's repositories, so the index's triggers run as they do in the
 * server. A reply is written with its text in its row, as it is once compaction has folded its deltas
 * (the bytes the index reads are the same); the cost of indexing replies as they stream is measured apart.
 */
function writeConversations(home: string, templateId: string, text: ConversationText, log: (line: string) => void): void {
  const store = Store.open(join(home, "atrium.db"));
  try {
    const sessions = new SessionRepository(store);
    const conversation = new ConversationRepository(store);
    const template = sessions.get(templateId);
    if (!template) throw new Error("the template session is not in the database");
    const start = Date.parse("2026-01-01T00:00:00.000Z");
    for (let index = 0; index < SESSIONS; index++) {
      const id = `ses_bench${String(index).padStart(5, "0")}`;
      const at = new Date(start + index * 60_000).toISOString();
      store.transaction(() => {
        sessions.save({ ...template, id, title: text.message(40).split(/[.?]/)[0]!, createdAt: at, updatedAt: at, sidebarStateChangedAt: at });
        for (let bytes = 0, turn = 0; bytes < TEXT_BYTES; turn++) {
          const prompt = turn % 2 === 0;
          const said = text.message(prompt ? 200 + text.below(500) : 1024 + text.below(11 * 1024));
          bytes += said.length;
          conversation.append(id, item(`msg_${id}_${turn}`, prompt ? "user" : "assistant", said, at));
        }
      });
      if ((index + 1) % 500 === 0) log(`  ${index + 1} of ${SESSIONS} sessions written`);
    }
  } finally {
    store.close();
  }
}

/**
 * The seeded data dir in `home`: copied from the cache, or written (then copied into the cache). The
 * seconds are those of writing it, whenever that was.
 */
async function seededHome(bench: Bench, home: string, text: ConversationText): Promise<number> {
  if (existsSync(SEED_DONE)) {
    bench.log(`  copying the seeded data dir from ${SEED_CACHE}`);
    cpSync(SEED_CACHE, home, { recursive: true });
    return (JSON.parse(readFileSync(SEED_DONE, "utf8")) as { seconds: number }).seconds;
  }
  const started = performance.now();
  writeConversations(home, await templateSession(bench, home), text, bench.log);
  const seconds = (performance.now() - started) / 1000;
  rmSync(SEED_CACHE, { recursive: true, force: true });
  cpSync(home, SEED_CACHE, { recursive: true });
  writeFileSync(SEED_DONE, JSON.stringify({ seconds }));
  return seconds;
}

/** MiB of the conversation's text, of the index's own tables, and of the copy of the text the index keeps for snippets. */
function sizes(home: string): { textMiB: number; indexMiB: number; indexedCopyMiB: number } {
  const db = new Database(join(home, "atrium.db"), { readonly: true });
  try {
    const mib = (sql: string) => (db.query<{ bytes: number | null }, []>(sql).get()?.bytes ?? 0) / 1024 / 1024;
    return {
      textMiB: mib("SELECT SUM(length(CAST(text AS BLOB))) AS bytes FROM conversation_items"),
      indexMiB: mib("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'conversation_text%' AND name <> 'conversation_text_content'"),
      indexedCopyMiB: mib("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'conversation_text_content'"),
    };
  } finally {
    db.close();
  }
}

/** A migrated store of its own, with the index's triggers or without them (the baseline), and a session to store replies in. */
function replyStore(bench: Bench, withIndex: boolean) {
  const store = Store.open(join(bench.tempDir(withIndex ? "search-replies" : "search-replies-baseline"), "atrium.db"));
  bench.defer(() => store.close());
  migrate(store);
  if (!withIndex) for (const trigger of ["prompt", "reply", "deleted"]) store.db.exec(`DROP TRIGGER conversation_text_of_${trigger}`);
  const events = new EventLog(store, new EventRepository(store), "srv_bench");
  events.accept(SessionEvents);
  return { store, conversation: new ConversationRepository(store), events, sessionId: "ses_replies" };
}

/** Stores replies as the server does: the generating item, its deltas as events, then its end (where the trigger indexes it). */
function storeReplies(into: ReturnType<typeof replyStore>, text: ConversationText, round: number): { storeMs: number; bytes: number } {
  const replies = Array.from({ length: REPLIES }, () => text.message(REPLY_BYTES));
  const started = performance.now();
  for (const [index, reply] of replies.entries()) {
    const itemId = `msg_r${round}_${index}`;
    into.store.transaction(() => {
      into.conversation.append(into.sessionId, item(itemId, "assistant", "", new Date().toISOString(), true), true);
      for (let at = 0; at < reply.length; at += DELTA_CHARS) {
        into.events.append("session.message.delta", into.sessionId, { itemId, text: reply.slice(at, at + DELTA_CHARS) }, { sessionId: into.sessionId });
      }
    });
    into.store.transaction(() => into.conversation.finish(itemId, "end_turn"));
  }
  return { storeMs: performance.now() - started, bytes: replies.reduce((sum, reply) => sum + Buffer.byteLength(reply), 0) };
}

/** The first word from `rank` on with at least 7 letters. */
const wordAt = (text: ConversationText, rank: number) => text.words.slice(rank).find((word) => word.length >= 7)!;

async function sessionsFound(atrium: Atrium, word: string): Promise<number> {
  let found = 0;
  for (let next: string | null = `/v1/sessions?limit=200&q=${word}`; next; ) {
    const response: Response = await fetch(atrium.url + next, { headers: atrium.headers });
    found += ((await response.json()) as unknown[]).length;
    next = nextLink(response.headers.get("link")) ?? null;
  }
  return found;
}

const nsPerByte = (rounds: Array<{ storeMs: number; bytes: number }>) => median(rounds.map((round) => (round.storeMs * 1e6) / round.bytes));

export const sessionSearch = measurement({
  key: "search",
  title: `GET /v1/sessions?q= over ${SESSIONS.toLocaleString("en")} sessions of ${TEXT_BYTES / 1024} KB of text`,
  seed: {
    what:
      `${SESSIONS.toLocaleString("en")} sessions copied from one made through the API, each with prompts (200–700 B) and replies ` +
      `(1–12 KB) up to ${TEXT_BYTES / 1024} KB of seeded Zipf-distributed text (50,000 words), written through the store's ` +
      "repositories (the index's triggers run as in the server), or that data dir copied from the bench's cache, then the " +
      "compiled server started on it. Beside it, two empty stores of our own, one without the index's triggers.",
    async run(bench) {
      const home = bench.tempDir("search-home");
      const text = new ConversationText(SEED);
      const seedSeconds = await seededHome(bench, home, text);
      const atrium = await bench.atrium({ home });
      const words = Object.fromEntries(Object.entries(WORD_RANKS).map(([kind, rank]) => [kind, wordAt(text, rank)])) as Record<WordKind, string>;
      const found = {} as Record<WordKind, number>;
      for (const kind of Object.keys(words) as WordKind[]) found[kind] = await sessionsFound(atrium, words[kind]);
      return { atrium, words, found, ...sizes(home), seedSeconds, withIndex: replyStore(bench, true), withoutIndex: replyStore(bench, false), text };
    },
  },
  action: {
    what:
      `${SEARCHES} sequential searches (first page of 50, timed to the last byte) for each of a common word (rank 40 of the ` +
      "vocabulary), a typical one (rank 1,000) and a rare one (rank 20,000), each time in a casing the server has not kept; " +
      `then ${REPLIES} replies of ${REPLY_BYTES / 1024} KB stored as the server stores them (the generating item and its ` +
      `${DELTA_CHARS}-character deltas in one transaction, its end in another) in a store with the index.`,
    run: async (world, round) => {
      const searches = {} as Record<WordKind, Summary>;
      for (const kind of Object.keys(world.words) as WordKind[]) {
        searches[kind] = summarize(await world.atrium.timeGets(SEARCHES, (request) => `/v1/sessions?limit=50&q=${casingOf(world.words[kind], request % 128)}`));
      }
      return { searches, ...storeReplies(world.withIndex, world.text, round) };
    },
  },
  baseline: {
    what: "the same replies stored in a store without the index's triggers (today's writes), in the same process, in turn with the action.",
    run: async (world, round) => storeReplies(world.withoutIndex, world.text, round),
  },
  rounds: { warmup: 1, measured: 5 },
  figures: ({ action, baseline }, world) => {
    const p50 = (kind: WordKind) => medianOf(action, (round) => round.searches[kind].p50);
    const withIndex = nsPerByte(action);
    const without = nsPerByte(baseline);
    return [
      { label: `a typical word ('${world.words.typical}', ${world.found.typical} sessions), p50`, value: p50("typical"), unit: "ms", target: below(20) },
      { label: "a typical word, p95", value: medianOf(action, (round) => round.searches.typical.p95), unit: "ms" },
      { label: `a common word ('${world.words.common}', ${world.found.common} sessions), p50`, value: p50("common"), unit: "ms" },
      { label: `a rare word ('${world.words.rare}', ${world.found.rare} sessions), p50`, value: p50("rare"), unit: "ms" },
      { label: "the conversations' text", value: world.textMiB, unit: "MiB" },
      { label: "the index (terms and positions)", value: world.indexMiB, unit: "MiB" },
      { label: "the index against the text", value: world.indexMiB / world.textMiB, unit: "ratio" },
      {
        label: "the index with its copy of the text (for snippets) against the text",
        value: (world.indexMiB + world.indexedCopyMiB) / world.textMiB,
        unit: "ratio",
      },
      { label: "storing a reply with the index, per byte", value: withIndex, unit: "ns/B" },
      { label: "storing a reply without it (baseline), per byte", value: without, unit: "ns/B" },
      { label: "storing a reply, with the index against without", value: withIndex / without, unit: "ratio" },
      { label: "writing the sessions (once per size and schema; then copied from the cache)", value: world.seedSeconds, unit: "s" },
    ];
  },
});

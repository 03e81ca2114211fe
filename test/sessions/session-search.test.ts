/**
 * Search every word (issue 35): `GET /v1/sessions?q=` finds sessions by what was said in them, through
 * SQLite's full-text index of prompts and finished replies, ranked, paged, with where it matched.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { lockDatabase, logSays } from "../helpers/locked-database.ts";
import { readServerDatabase } from "../helpers/test-store.ts";
import { SessionListItem } from "../../src/schemas/sessions.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

type ListItem = typeof SessionListItem.static;

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

/** Replies the scripted agent gives, by prompt. */
const REPLIES: Record<string, string> = {
  "about birds": "The kestrel hovers over the meadow before it drops on a vole.",
  "about many birds": "Kestrel, kestrel, kestrel: three of them over the hill.",
  "about the weather": "Rain all week, with a dry spell on Sunday.",
  "about something long": `${"Nothing much happened that afternoon. ".repeat(40)}Then a kestrel passed.`,
};

async function startWithReplies() {
  t = await startSessionServer({ agents: "in-process" });
  t.script({ prompts: Object.fromEntries(Object.entries(REPLIES).map(([prompt, reply]) => [prompt, [{ chunk: reply }]])) });
}

/** A session that was sent `prompt` and has its whole reply. */
async function conversed(prompt: string) {
  const session = await t.newSession();
  expect((await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: prompt })).status).toBe(201);
  const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
  return { id: session.id, promptId: done.conversation[0]!.id, replyId: lastReply(done)!.id };
}

async function search(query: string): Promise<ListItem[]> {
  const found = await t.json<ListItem[]>("GET", `/v1/sessions?q=${encodeURIComponent(query)}`);
  expect(found.status).toBe(200);
  assertMatchesSchema(Type.Array(SessionListItem), found.body);
  return found.body;
}

const highlighted = (item: ListItem) => item.match!.highlights.map(({ start, end }) => item.match!.snippet.slice(start, end));

test("a word only in a reply finds its session, with the reply's id and a snippet whose matched words are marked by offsets", async () => {
  await startWithReplies();
  const birds = await conversed("about birds");
  const weather = await conversed("about the weather");

  const found = await search("meadow");
  expect(found.map((item) => item.id)).toEqual([birds.id]);
  expect(found[0]!.match!.itemId).toBe(birds.replyId);
  expect(found[0]!.match!.snippet).toContain("hovers over the meadow before");
  expect(highlighted(found[0]!)).toEqual(["meadow"]);
  // Any case and accents; every word must be there; the last one also as a prefix while it is typed.
  expect((await search("MÉADOW")).map((item) => item.id)).toEqual([birds.id]);
  expect((await search("rain sund")).map((item) => item.id)).toEqual([weather.id]);
  expect(highlighted((await search("rain sund"))[0]!)).toEqual(["Rain", "Sunday"]);
  expect(await search("rain sund ")).toEqual([]);
  expect(await search("rain meadow")).toEqual([]);
  // A prompt's words are the conversation's too.
  const byPrompt = await search("weather");
  expect(byPrompt.map((item) => [item.id, item.match?.itemId])).toEqual([[weather.id, weather.promptId]]);
  // A search for the title keeps finding by title (a title match has no conversation match unless words match).
  await t.json("PATCH", `/v1/sessions/${weather.id}`, { title: "Forecast" });
  expect((await search("forecast")).map((item) => [item.id, item.match])).toEqual([[weather.id, undefined]]);
});

test("what a user types is never FTS syntax: quotes, operators, brackets and stars match as text or find nothing, never an error", async () => {
  await startWithReplies();
  const birds = await conversed("about birds");
  for (const query of [
    '"',
    "*",
    "foo AND (",
    "kestrel OR",
    'NEAR("kestrel" "vole")',
    "-kestrel",
    "kestrel:",
    "^",
    "col:kestrel",
    "'",
    "\\",
    "(((",
    "🙂",
    "a*b*c",
  ]) {
    const found = await t.json<ListItem[] | { error: string }>("GET", `/v1/sessions?q=${encodeURIComponent(query)}`);
    expect(found.status).toBe(200);
    assertMatchesSchema(Type.Array(SessionListItem), found.body);
  }
  // Operators are words like any other: "kestrel OR" needs a word starting with "or" too; quotes make no phrase.
  expect(await search("kestrel OR")).toEqual([]);
  expect((await search("kestrel ON")).map((item) => item.id)).toEqual([birds.id]);
  expect((await search('"kestrel vole"')).map((item) => item.id)).toEqual([birds.id]);
  expect(await search("kestrel AND nothing")).toEqual([]);
  const tooLong = await t.json<{ error: string }>("GET", `/v1/sessions?q=${"x".repeat(201)}`);
  expect(tooLong.status).toBe(400);
  assertMatchesSchema(ErrorBody, tooLong.body);
});

test("titles and project names first (newest first), then conversations by rank; pages follow that order", async () => {
  await startWithReplies();
  const one = await conversed("about birds");
  const many = await conversed("about many birds");
  const long = await conversed("about something long");
  const named = await conversed("about the weather");
  await t.json("PATCH", `/v1/sessions/${named.id}`, { title: "Kestrel sightings" });

  const found = await search("kestrel");
  // The title first; then the reply that says it three times in few words, then once in a short reply, then once in a long one.
  expect(found.map((item) => item.id)).toEqual([named.id, many.id, one.id, long.id]);
  expect(found[1]!.match!.itemId).toBe(many.replyId);

  // Page by page through the Link header: the same order, each once.
  const paged: string[] = [];
  let next: string | null = "/v1/sessions?q=kestrel&limit=1";
  while (next) {
    const response: Response = await t.api(next);
    expect(response.status).toBe(200);
    const page = (await response.json()) as ListItem[];
    assertMatchesSchema(Type.Array(SessionListItem), page);
    paged.push(...page.map((item) => item.id));
    next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1] ?? null;
  }
  expect(paged).toEqual(found.map((item) => item.id));
  // Filters still apply, and a cursor from elsewhere is refused.
  expect((await search("kestrel")).length).toBe(4);
  const ofProject = await t.json<ListItem[]>("GET", `/v1/sessions?q=kestrel&projectId=${encodeURIComponent((await t.detail(many.id)).session.projectId)}`);
  expect(ofProject.body.map((item) => item.id)).toEqual([many.id]);
  const forged = Buffer.from(JSON.stringify(["0", "not a number", "ses_x"])).toString("base64url");
  const refused = await t.json<{ error: string }>("GET", `/v1/sessions?q=kestrel&cursor=${forged}`);
  expect(refused.status).toBe(400);
  assertMatchesSchema(ErrorBody, refused.body);
});

test("deleting a session removes its rows from the index, in the database file", async () => {
  await startWithReplies();
  const gone = await conversed("about birds");
  const kept = await conversed("about many birds");
  const indexed = (sessionId: string) =>
    readServerDatabase(t.dataDir, (db) => ({
      rows: db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM conversation_text_rows WHERE session_id = ?").get(sessionId)!.n,
      meadow: db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM conversation_text WHERE conversation_text MATCH '"meadow"'`).get()!.n,
    }));
  expect(indexed(gone.id)).toEqual({ rows: 2, meadow: 1 });

  expect((await t.json("DELETE", `/v1/sessions/${gone.id}`)).status).toBe(200);
  expect(indexed(gone.id)).toEqual({ rows: 0, meadow: 0 });
  expect(indexed(kept.id).rows).toBe(2);
  expect(await search("meadow")).toEqual([]);
  expect((await search("kestrel")).map((item) => item.id)).toEqual([kept.id]);
});

test("a database locked by another process when a reply ends: the reply and its place in the index are written once the lock is gone", async () => {
  t = await startSessionServer({ agents: "in-process", tuning: { writeBehindMs: 50, busyTimeoutMs: 50 } });
  t.script({ prompts: { "*": [{ chunk: "the osprey circles " }, { gate: "end" }, { chunk: "and dives" }] } });
  const session = await t.newSession();
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "tell me" });
  await t.until(session.id, (d) => lastReply(d)?.text === "the osprey circles ");

  const unlock = lockDatabase(join(t.dataDir, "atrium.db"));
  try {
    t.agents.openGate("end");
    // The reply's last text or the turn's end (with the reply's place in the index) meets the lock.
    await logSays(t.dataDir, "could not be written");
  } finally {
    unlock();
  }
  const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2, 30_000);
  expect(lastReply(done)).toMatchObject({ text: "the osprey circles and dives" });
  const found = await search("osprey dives");
  expect(found.map((item) => [item.id, item.match?.itemId])).toEqual([[session.id, lastReply(done)!.id]]);
});

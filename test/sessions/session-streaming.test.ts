import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SseClient, type SseFrame } from "../helpers/sse-client.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SessionEvents } from "../../src/schemas/sessions.ts";
import { startSessionServer, type DetailBody, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

const MiB = 1024 * 1024;
/**
 * A reply's chunks, numbered so that one lost or out of order shows, and one alone longer than an
 * event may be (its deltas must be cut), though not longer than a client's backlog.
 */
function replyChunks(): string[] {
  const numbered = Array.from({ length: 1_200 }, (_, index) => `chunk ${index} ${"words ".repeat(170)}`);
  return [...numbered.slice(0, 600), "long ".repeat((1.2 * MiB) / 5), ...numbered.slice(600)];
}

test("a long reply reaches every live client with none dropped, no event is over 1 MiB, and its text is written once", async () => {
  // A backlog limit well under the reply: before, the completed event carried the whole text and
  // alone overflowed it, dropping every client at the end of the reply.
  t = await startSessionServer({ agents: "in-process", tuning: { streamLimits: { maxQueuedBytes: 2 * MiB } } });
  const chunks = replyChunks();
  t.script({ prompts: { long: chunks.map((chunk) => ({ chunk })) } });
  const session = await t.newSession();
  const headers = { authorization: `Bearer ${t.token}` };
  const clients = [1, 2, 3].map(() => new SseClient(`${t!.url}/v1/events/stream?sessionId=${session.id}`, headers));
  await Promise.all(clients.map((client) => client.ready));
  const expected = chunks.join("");
  expect(expected.length).toBeGreaterThan(2.3 * MiB);
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "long" });

  const isCompleted = (frame: SseFrame) => frame.event === "session.message.completed" && frame.data.includes('"role":"assistant"');
  const completedOf = (client: SseClient) => client.frames.find(isCompleted);
  await Promise.all(clients.map((client) => client.waitFor(isCompleted, 60_000)));
  for (const client of clients) {
    expect(client.closed).toBe(false);
    for (const frame of client.frames) expect(frame.data.length).toBeLessThan(MiB);
    const deltas = client.frames.filter((frame) => frame.event === "session.message.delta").map((frame) => JSON.parse(frame.data).payload);
    for (const delta of deltas) assertMatchesSchema(SessionEvents["session.message.delta"], delta);
    expect(deltas.map((delta) => delta.text).join("")).toBe(expected);
    const completed = JSON.parse(completedOf(client)!.data).payload;
    assertMatchesSchema(SessionEvents["session.message.completed"], completed);
    expect(completed).toMatchObject({ textOmitted: true, item: { text: "", isGenerating: false, stopReason: "end_turn" } });
    client.close();
  }
  const detail = (await t.json<DetailBody>("GET", `/v1/sessions/${session.id}`)).body;
  const reply = detail.conversation[1]!;
  expect(reply.text).toBe(expected);

  // Stored once: the reply's row holds no copy of the text, its deltas hold it exactly once.
  const db = new Database(join(t.dataDir, "atrium.db"), { readonly: true });
  try {
    const row = db.query<{ text: string }, [string]>("SELECT text FROM conversation_items WHERE id = ?").get(reply.id);
    expect(row?.text).toBe("");
    const stored = db
      .query<{ chars: number; largest: number }, [string]>(
        "SELECT SUM(length(json_extract(payload, '$.text'))) AS chars, MAX(length(payload)) AS largest FROM events WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = ?",
      )
      .get(reply.id);
    expect(stored?.chars).toBe(expected.length);
    expect(stored?.largest).toBeLessThan(MiB);
    const completedSize = db.query<{ size: number }, []>("SELECT MAX(length(payload)) AS size FROM events WHERE kind = 'session.message.completed'").get();
    expect(completedSize?.size).toBeLessThan(64 * 1024 + 4096);
  } finally {
    db.close();
  }
}, 90_000);

test("a short reply's completed event still carries its text", async () => {
  t = await startSessionServer({ agents: "in-process" });
  const session = await t.newSession();
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "hello" });
  await until(
    async () => (await t!.json<DetailBody>("GET", `/v1/sessions/${session.id}`)).body,
    (d) => d.conversation[1]?.isGenerating === false,
  );
  const events = (
    await t.json<Array<{ kind: string; payload: { item?: { role: string; text: string }; textOmitted?: boolean } }>>("GET", `/v1/sessions/${session.id}/events`)
  ).body;
  const completed = events.filter((event) => event.kind === "session.message.completed").map((event) => event.payload);
  expect(completed).toEqual([expect.objectContaining({ textOmitted: false, item: expect.objectContaining({ role: "assistant", text: "echo hello" }) })]);
});

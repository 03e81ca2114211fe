import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SessionEvents } from "../../src/schemas/sessions.ts";
import type { DetailBody } from "./session-helpers.ts";

let t: TestServer | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const longReply = (count: number) => Array.from({ length: count }, (_, index) => `chunk ${index} `).join("");
const MiB = 1024 * 1024;

test("a long reply reaches every live client with none dropped, no event is over 1 MiB, and its text is written once", async () => {
  // A backlog limit well under the reply: before, the completed event carried the whole text and
  // alone overflowed it, dropping every client at the end of the reply.
  t = await startTestServer({ tuning: { streamLimits: { maxQueuedBytes: 512 * 1024 } } });
  await t.ready();
  const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo" });
  const headers = { authorization: `Bearer ${t.token}` };
  const clients = [1, 2, 3].map(() => new SseClient(`${t!.url}/v1/events/stream?sessionId=${session.body.id}`, headers));
  await Promise.all(clients.map((client) => client.ready));
  const count = 130_000;
  const expected = longReply(count);
  expect(expected.length).toBeGreaterThan(1.4 * MiB);
  await t.json("POST", `/v1/sessions/${session.body.id}/prompts`, { text: `/long ${count}` });

  const completedOf = (client: SseClient) =>
    client.frames.find((frame) => frame.event === "session.message.completed" && frame.data.includes('"role":"assistant"'));
  await until(
    async () => clients.map(completedOf),
    (found) => found.every((frame) => frame !== undefined),
    60_000,
  );
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
  const detail = (await t.json<DetailBody>("GET", `/v1/sessions/${session.body.id}`)).body;
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
  t = await startTestServer();
  await t.ready();
  const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo" });
  await t.json("POST", `/v1/sessions/${session.body.id}/prompts`, { text: "hello" });
  await until(
    async () => (await t!.json<DetailBody>("GET", `/v1/sessions/${session.body.id}`)).body,
    (d) => d.conversation[1]?.isGenerating === false,
  );
  const events = (
    await t.json<Array<{ kind: string; payload: { item?: { role: string; text: string }; textOmitted?: boolean } }>>(
      "GET",
      `/v1/sessions/${session.body.id}/events`,
    )
  ).body;
  const completed = events.filter((event) => event.kind === "session.message.completed").map((event) => event.payload);
  expect(completed).toEqual([expect.objectContaining({ textOmitted: false, item: expect.objectContaining({ role: "assistant", text: "Echo: hello" }) })]);
});

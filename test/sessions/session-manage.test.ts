/**
 * Managing sessions (issue 35): archiving hides a session from the list until it is restored, without
 * stopping it working; a title the agent gives names the session unless the user named it.
 */
import { afterEach, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Session, SessionListItem } from "../../src/schemas/sessions.ts";
import { idle, lastReply, startSessionServer, type SessionBody, type SessionTestServer } from "./session-helpers.ts";

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

async function listed(query = ""): Promise<string[]> {
  const list = await t.json<SessionBody[]>("GET", `/v1/sessions${query}`);
  expect(list.status).toBe(200);
  assertMatchesSchema(Type.Array(SessionListItem), list.body);
  return list.body.map((session) => session.id);
}

async function patch(id: string, body: unknown) {
  const changed = await t.json<SessionBody>("PATCH", `/v1/sessions/${id}`, body);
  expect(changed.status).toBe(200);
  assertMatchesSchema(Session, changed.body);
  return changed.body;
}

test("an archived session leaves the list, is listed with archived=true, still works, and comes back when restored; clients are told", async () => {
  t = await startSessionServer({ agents: "in-process" });
  t.script({ prompts: { "*": [{ chunk: "the heron waits" }] } });
  const kept = await t.newSession();
  const archived = await t.newSession();
  expect(archived.archivedAt).toBeNull();
  const cursor = await t.ready();
  const sse = new SseClient(`${t.url}/v1/events/stream?after=${cursor}&sessionId=${archived.id}`, { authorization: `Bearer ${t.token}` });
  try {
    await sse.ready;
    const changed = await patch(archived.id, { archived: true });
    expect(Date.parse(changed.archivedAt!)).toBeGreaterThan(0);
    // The change is an event, carrying the session as it now is.
    const told = await sse.waitFor((frame) => frame.event === "session.updated");
    const event = JSON.parse(told.data) as EventRecord;
    assertMatchesSchema(EventRecord, event);
    expect((event.payload as { session: SessionBody }).session.archivedAt).toBe(changed.archivedAt);
  } finally {
    sse.close();
  }

  expect(await listed()).toEqual([kept.id]);
  expect(await listed("?archived=false")).toEqual([kept.id]);
  expect(await listed("?archived=true")).toEqual([archived.id]);
  // Archiving again keeps when it was archived.
  expect((await patch(archived.id, { archived: true })).archivedAt).toBe((await t.detail(archived.id)).session.archivedAt);

  // It still opens and takes prompts; its words are found when archived ones are asked for.
  expect((await t.json("POST", `/v1/sessions/${archived.id}/prompts`, { text: "wait" })).status).toBe(201);
  const done = await t.until(archived.id, (d) => idle(d) && d.conversation.length === 2);
  expect(lastReply(done)!.text).toBe("the heron waits");
  expect(done.session.archivedAt).not.toBeNull();
  expect(await listed("?q=heron")).toEqual([]);
  expect(await listed("?q=heron&archived=true")).toEqual([archived.id]);

  // Bad input changes nothing.
  const refused = await t.json<{ error: string }>("PATCH", `/v1/sessions/${archived.id}`, { archived: "yes" });
  expect(refused.status).toBe(400);
  assertMatchesSchema(ErrorBody, refused.body);
  expect(refused.body.error).toContain("archived");
  expect((await t.json("GET", "/v1/sessions?archived=maybe")).status).toBe(400);
  expect((await t.json("PATCH", "/v1/sessions/ses_nope", { archived: true })).status).toBe(404);
  expect(await listed("?archived=true")).toEqual([archived.id]);

  expect((await patch(archived.id, { archived: false })).archivedAt).toBeNull();
  expect(await listed()).toEqual([archived.id, kept.id]);
  expect(await listed("?archived=true")).toEqual([]);
});

test("the agent's title names the session in place of the first prompt's words; a title the user gave wins, and clearing it lets the agent's in again", async () => {
  t = await startSessionServer({ agents: "in-process" });
  t.script({
    prompts: {
      "make a hello file please": [{ chunk: "done" }, { title: "Hello file" }],
      again: [{ title: "Greeting files" }, { chunk: "done again" }],
    },
  });
  const session = await t.newSession();
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "make a hello file please" });
  const titled = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
  expect(titled.session.title).toBe("Hello file");

  await patch(session.id, { title: "My files" });
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "again" });
  const kept = await t.until(session.id, (d) => idle(d) && d.conversation.length === 4);
  expect(lastReply(kept)!.text).toBe("done again");
  expect(kept.session.title).toBe("My files");

  // Given back (title null): the agent's next title is taken.
  expect((await patch(session.id, { title: null })).title).toBe("New session");
  await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: "again" });
  const retitled = await t.until(session.id, (d) => idle(d) && d.conversation.length === 6);
  expect(retitled.session.title).toBe("Greeting files");
  expect(await listed("?q=greeting")).toEqual([session.id]);
});

/**
 * Delete means gone (issue 27): what was said in a deleted session is in no table, no event a replay
 * serves, and neither the database file nor its WAL once scrubbed; the files only it attached go too,
 * and deleting a project deletes its sessions the same way.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/poll.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "./session-helpers.ts";

const SECRET = "SECRET-XYZ-123";

let t: SessionTestServer;
afterEach(async () => {
  await t.cleanup();
});

/** Whether the database file or its WAL holds the bytes (as UTF-8, in any page). */
function onDisk(dataDir: string, text: string): string[] {
  const needle = Buffer.from(text);
  return ["atrium.db", "atrium.db-wal"].filter((file) => existsSync(join(dataDir, file)) && readFileSync(join(dataDir, file)).includes(needle));
}

/** A session that was told the secret, answered with it, thought about it and got a file that holds it. */
async function sessionWithSecret(projectId?: string) {
  t.script({ prompts: { "*": [{ thought: `thinking about ${SECRET}` }, { describePrompt: true }] } });
  const upload = await t.json<{ fileId: string }>("POST", "/v1/files", {
    name: "secret.txt",
    mimeType: "text/plain",
    contentBase64: Buffer.from(`the file says ${SECRET}`).toString("base64"),
  });
  expect(upload.status).toBe(201);
  const session = projectId ? (await t.json<{ id: string }>("POST", "/v1/sessions", { projectId, harnessId: "scripted" })).body : await t.newSession();
  const sent = await t.json("POST", `/v1/sessions/${session.id}/prompts`, { text: `my secret is ${SECRET}`, attachments: [{ fileId: upload.body.fileId }] });
  expect(sent.status).toBe(201);
  const done = await t.until(session.id, (d) => idle(d) && d.conversation.length === 2);
  expect(lastReply(done)!.text).toContain(SECRET);
  return { sessionId: session.id, fileId: upload.body.fileId };
}

test("a deleted session's words are in no event a replay serves, no table, and neither the database nor its WAL", async () => {
  t = await startSessionServer({ agents: "in-process" });
  const { sessionId, fileId } = await sessionWithSecret();
  // Another session keeps its own words.
  t.script({ prompts: { "*": [{ describePrompt: true }] } });
  const kept = await t.newSession();
  await t.json("POST", `/v1/sessions/${kept.id}/prompts`, { text: "keep me" });
  await t.until(kept.id, (d) => idle(d) && d.conversation.length === 2);
  expect((await replayedEvents(t, 0)).some((event) => JSON.stringify(event).includes(SECRET))).toBe(true);

  expect((await t.json("DELETE", `/v1/sessions/${sessionId}`)).status).toBe(200);

  const replay = await replayedEvents(t, 0);
  expect(replay.filter((event) => JSON.stringify(event).includes(SECRET))).toEqual([]);
  // The deletion itself is told, and the other session's events are all still there.
  expect(replay.some((event) => event.kind === "session.deleted" && (event.payload as { sessionId: string }).sessionId === sessionId)).toBe(true);
  expect(replay.some((event) => JSON.stringify(event).includes("keep me"))).toBe(true);
  expect((await t.json("GET", `/v1/sessions/${sessionId}/events?after=0`)).status).toBe(404);
  // The file only it attached is gone, record and bytes.
  expect(existsSync(join(t.dataDir, "files", fileId))).toBe(false);
  // Scrubbed: the freed pages are zeroed and the WAL emptied (after any checkpoint the worker held).
  expect(
    await until(
      async () => onDisk(t.dataDir, SECRET),
      (files) => files.length === 0,
    ),
  ).toEqual([]);
  // And given back: a database made by this version vacuums incrementally, and no free page is left.
  const db = new Database(join(t.dataDir, "atrium.db"), { readonly: true });
  try {
    expect(db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()?.auto_vacuum).toBe(2);
    expect(db.query<{ freelist_count: number }, []>("PRAGMA freelist_count").get()?.freelist_count).toBe(0);
  } finally {
    db.close();
  }
});

test("a file another session still attaches stays when one of them is deleted", async () => {
  t = await startSessionServer({ agents: "in-process" });
  const { sessionId, fileId } = await sessionWithSecret();
  const other = await t.newSession();
  await t.json("POST", `/v1/sessions/${other.id}/prompts`, { text: "the same file", attachments: [{ fileId }] });
  await t.until(other.id, (d) => idle(d) && d.conversation.length === 2);
  expect((await t.json("DELETE", `/v1/sessions/${sessionId}`)).status).toBe(200);
  expect(existsSync(join(t.dataDir, "files", fileId))).toBe(true);
  const again = await t.json("POST", `/v1/sessions/${other.id}/prompts`, { text: "again", attachments: [{ fileId }] });
  expect(again.status).toBe(201);
});

test("deleting a project deletes its sessions the same way", async () => {
  t = await startSessionServer({ agents: "in-process" });
  await t.ready();
  const project = (await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true })).body;
  const { sessionId } = await sessionWithSecret(project.id);
  expect((await t.json("DELETE", `/v1/projects/${project.id}`)).status).toBe(200);
  expect((await t.json("GET", `/v1/sessions/${sessionId}`)).status).toBe(404);
  const replay = await replayedEvents(t, 0);
  expect(replay.filter((event) => JSON.stringify(event).includes(SECRET))).toEqual([]);
  expect(
    await until(
      async () => onDisk(t.dataDir, SECRET),
      (files) => files.length === 0,
    ),
  ).toEqual([]);
});

test("sessions left by a project deleted before they went with it are deleted at the next start", async () => {
  t = await startSessionServer({ agents: "in-process" });
  const { sessionId } = await sessionWithSecret();
  const projectId = (await t.detail(sessionId)).session.projectId;
  await t.server.stop();
  // As an earlier build left it: the project row gone, its session still there.
  const db = new Database(join(t.dataDir, "atrium.db"));
  db.query("DELETE FROM projects WHERE id = ?").run(projectId);
  db.close();
  const again = await t.restart();
  try {
    await again.ready();
    expect(
      (
        await until(
          () => again.json("GET", `/v1/sessions/${sessionId}`),
          (answer) => answer.status === 404,
        )
      ).status,
    ).toBe(404);
    expect((await replayedEvents(again, 0)).filter((event) => JSON.stringify(event).includes(SECRET))).toEqual([]);
  } finally {
    await again.stop();
  }
});

/**
 * A streamed reply's deltas are published at once and stored a moment later, many in one commit
 * (issue 27: fewer bytes per reply byte). Readers never see a hole, the table stays in id order, a
 * store that fails refuses new deltas, and a kill -9 loses only the last moment of a reply, with the
 * clients that saw it told to re-read instead of missing what follows under the same ids.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { EventLog, type LoggedEvent } from "../../src/events/event-log.ts";
import { MODULES } from "../../src/modules/modules.ts";
import { ConflictError } from "../../src/errors.ts";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";
import { lockDatabase } from "../helpers/locked-database.ts";
import { until } from "../helpers/poll.ts";

let db: TestStore | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

const delta = (text: string) => ({ itemId: "itm_1", text });
const storedIds = (store: Store) =>
  store.db
    .query<{ global_id: number }, []>("SELECT global_id FROM events ORDER BY rowid")
    .all()
    .map((row) => row.global_id);

function logOver(store: Store, writeBehindMs: number): EventLog {
  const log = new EventLog(store, new EventRepository(store), "srv_test", undefined, { writeBehindMs });
  for (const module of MODULES) log.accept(module.eventKinds);
  return log;
}

test("a delta is heard at once, read back before it is stored, and stored with the next ones in one commit", async () => {
  db = openTestStore();
  const log = logOver(db.store, 100);
  const heard: LoggedEvent[] = [];
  log.subscribe((event) => heard.push(event));
  const first = log.appendLive("session.message.delta", "ses_1", delta("one "), { sessionId: "ses_1" });
  const second = log.appendLive("session.message.delta", "ses_1", delta("two"), { sessionId: "ses_1" });
  expect(heard.map((event) => event.record.globalEventId)).toEqual([first.globalEventId, second.globalEventId]);
  expect([first.id, second.id]).toEqual([1, 2]);
  expect(storedIds(db.store)).toEqual([]);
  // Readers get them after the stored rows: a replay or a page never skips them.
  expect(log.read(0, 10).map((event) => event.record.payload)).toEqual([delta("one "), delta("two")]);
  expect(log.readSession("ses_1", 1, 10).map((event) => event.payload)).toEqual([delta("two")]);
  expect(log.cursor()).toBe(second.globalEventId);
  await until(
    async () => storedIds(db!.store),
    (ids) => ids.length === 2,
    2000,
  );
  expect(storedIds(db.store)).toEqual([first.globalEventId, second.globalEventId]);
});

test("any other write stores the waiting deltas first, so the table stays in id order", () => {
  db = openTestStore();
  const log = logOver(db.store, 60_000);
  const live = log.appendLive("session.message.delta", "ses_1", delta("before"), { sessionId: "ses_1" });
  const other = db.store.transaction(() =>
    log.append("session.message.completed", "ses_1", { item: null as never, textOmitted: true }, { sessionId: "ses_1" }),
  );
  expect(storedIds(db.store)).toEqual([live.globalEventId, other.globalEventId]);
  expect(other.id).toBe(live.id + 1);
  expect(other.subjectRevision).toBe(live.subjectRevision + 1);
});

test("the state's cursor: what waits is stored first; if that fails, the cursor stops before it until the retries store it", async () => {
  db = openTestStore({ busyTimeoutMs: 0 });
  const log = logOver(db.store, 60_000);
  const live = log.appendLive("session.message.delta", "ses_1", delta("x"), { sessionId: "ses_1" });
  const unlock = lockDatabase(join(db.dir, "atrium.db"));
  try {
    expect(log.storedCursor()).toBe(live.globalEventId - 1);
    // While it cannot store what waits, the log takes no new delta: the reply keeps it and tries again.
    expect(() => log.appendLive("session.message.delta", "ses_1", delta("y"), { sessionId: "ses_1" })).toThrow();
    expect(log.read(0, 10).map((event) => event.record.payload)).toEqual([delta("x")]);
    // Reads do not try again while it fails: they would wait for the lock each time.
    expect(log.storedCursor()).toBe(live.globalEventId - 1);
  } finally {
    unlock();
  }
  await until(
    async () => log.storedCursor(),
    (cursor) => cursor === live.globalEventId,
    3000,
  );
  expect(storedIds(db.store)).toEqual([live.globalEventId]);
});

test("kill -9 before the deltas were stored: their ids are never given again, and a cursor among them is refused 409", async () => {
  db = openTestStore();
  const path = join(db.dir, "atrium.db");
  const before = db.store.transaction(() => db!.log.append("sync.changed", "sync:n", { namespace: "n", keys: ["k"] }));
  db.store.close();
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "fixtures", "event-log", "publish-then-die.ts"), path], { stdout: "pipe" });
  const published = JSON.parse(await new Response(child.stdout).text()) as number[];
  expect(await child.exited).not.toBe(0);
  expect(published).toHaveLength(3);

  const store = Store.open(path);
  try {
    const log = logOver(store, 60_000);
    // Lost: nothing of them is served, and a client that saw them must re-read.
    expect(log.read(0, 10).map((event) => event.record.globalEventId)).toEqual([before.globalEventId]);
    for (const cursor of published) expect(() => log.checkResumable(cursor)).toThrow(ConflictError);
    expect(() => log.checkResumable(before.globalEventId)).not.toThrow();
    const next = store.transaction(() => log.append("sync.changed", "sync:n", { namespace: "n", keys: ["k"] }));
    expect(next.globalEventId).toBeGreaterThan(Math.max(...published));
    // A clean stop releases the reservation: the next start gives ids on from the last one.
    log.close();
    const again = logOver(store, 60_000);
    expect(() => again.checkResumable(published[0]!)).toThrow(ConflictError);
    expect(store.transaction(() => again.append("sync.changed", "sync:n", { namespace: "n", keys: ["k"] })).globalEventId).toBe(next.globalEventId + 1);
  } finally {
    store.close();
  }
});

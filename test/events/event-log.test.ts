import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Store } from "../../src/store/database.ts";
import type { EventLog, LoggedEvent } from "../../src/events/event-log.ts";
import { matchesFilter, parseKindList } from "../../src/events/event-filter.ts";
import { EventRecord } from "../../src/schemas/events.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { EventRepository } from "../../src/store/event-repository.ts";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";

let db: TestStore;
let store: Store;
let log: EventLog;
let heard: LoggedEvent[];

beforeEach(() => {
  db = openTestStore();
  ({ store, log } = db);
  heard = [];
  log.subscribe((event) => heard.push(event));
});
afterEach(() => db.close());

const change = (keys: string[]) => ({ namespace: "n", keys });

describe("event log", () => {
  test("append outside a transaction is refused", () => {
    expect(() => log.append("sync.changed", "sync:n", change(["a"]))).toThrow("inside the transaction");
    expect(log.cursor()).toBe(0);
  });

  test("a kind no module declared is refused, and nothing is written", () => {
    expect(() => store.transaction(() => log.append("plugin.started", "p", change(["a"])))).toThrow("not a kind any module declared");
    expect(log.cursor()).toBe(0);
    expect(heard).toEqual([]);
  });

  test("events are heard only after their transaction commits", () => {
    store.transaction(() => {
      log.append("sync.changed", "sync:n", change(["a"]));
      expect(heard).toHaveLength(0);
    });
    expect(heard).toHaveLength(1);
    assertMatchesSchema(EventRecord, heard[0]!.record);
  });

  test("a rolled-back transaction leaves no event and tells no listener", () => {
    expect(() =>
      store.transaction(() => {
        log.append("sync.changed", "sync:n", change(["a"]));
        throw new Error("the change failed");
      }),
    ).toThrow("the change failed");
    expect(log.cursor()).toBe(0);
    expect(heard).toHaveLength(0);
  });

  test("a failed nested transaction drops only its own events", () => {
    store.transaction(() => {
      log.append("sync.changed", "sync:n", change(["outer"]));
      try {
        store.transaction(() => {
          log.append("sync.changed", "sync:n", change(["inner"]));
          throw new Error("inner failed");
        });
      } catch {
        // the outer change goes on
      }
    });
    expect(heard.map((event) => (event.record.payload as { keys: string[] }).keys[0])).toEqual(["outer"]);
    expect(log.read(0, 10).map((event) => event.record.globalEventId)).toEqual([heard[0]!.record.globalEventId]);
  });

  test("subjectRevision counts per subject; id is the global id for events without a session", () => {
    const records = store.transaction(() => [
      log.append("sync.changed", "sync:a", change(["1"])),
      log.append("sync.changed", "sync:b", change(["1"])),
      log.append("sync.changed", "sync:a", change(["2"])),
    ]);
    expect(records.map((r) => r.subjectRevision)).toEqual([1, 1, 2]);
    expect(records.map((r) => r.globalEventId)).toEqual([1, 2, 3]);
    expect(records.map((r) => r.id)).toEqual([1, 2, 3]);
  });

  test("session events get a gap-free per-session id", () => {
    store.transaction(() => {
      log.append("sync.changed", "ses_a", change(["1"]), { sessionId: "ses_a" });
      log.append("sync.changed", "other", change(["1"]));
      log.append("sync.changed", "ses_b", change(["1"]), { sessionId: "ses_b" });
      log.append("sync.changed", "ses_a", change(["2"]), { sessionId: "ses_a" });
    });
    const sessionA = log.read(0, 10, "ses_a").map((event) => event.record);
    expect(sessionA.map((r) => r.id)).toEqual([1, 2]);
    expect(sessionA.map((r) => r.globalEventId)).toEqual([1, 4]);
    expect(log.read(0, 10, "ses_b").map((event) => event.record.id)).toEqual([1]);
  });

  test("read pages after a cursor in order", () => {
    store.transaction(() => {
      for (let i = 0; i < 7; i++) log.append("sync.changed", "sync:n", change([String(i)]));
    });
    expect(log.read(0, 3).map((e) => e.record.globalEventId)).toEqual([1, 2, 3]);
    expect(log.read(3, 3).map((e) => e.record.globalEventId)).toEqual([4, 5, 6]);
    expect(log.read(6, 3).map((e) => e.record.globalEventId)).toEqual([7]);
    expect(log.cursor()).toBe(7);
  });

  test("the cursor never goes back: the newest events forgotten with their session, or all compacted away, leave a client at it resumable", () => {
    store.transaction(() => {
      log.append("sync.changed", "sync:n", change(["a"]));
      log.append("sync.changed", "ses_a", change(["1"]), { sessionId: "ses_a" });
      log.append("sync.changed", "ses_a", change(["2"]), { sessionId: "ses_a" });
    });
    expect(log.cursor()).toBe(3);
    store.transaction(() => log.forgetSession("ses_a"));
    expect(log.cursor()).toBe(3);
    expect(() => log.checkResumable(3)).not.toThrow();
    // Compaction removes every event (a short retention): the horizon moves up to the cursor, not past it.
    store.transaction(() => {
      new EventRepository(store).removeThrough(3);
      log.compactedThrough(3);
    });
    expect(log.read(0, 10)).toEqual([]);
    expect(log.cursor()).toBe(3);
    expect(() => log.checkResumable(3)).not.toThrow();
    expect(() => log.checkResumable(2)).toThrow("no longer kept");
    expect(() => log.checkResumable(4)).toThrow("ahead of this server's event log");
    // What comes next goes on from there.
    store.transaction(() => log.append("sync.changed", "sync:n", change(["b"])));
    expect(log.read(3, 10).map((e) => e.record.globalEventId)).toEqual([4]);
  });
});

describe("event filters", () => {
  const event = (kind: string, sessionId: string | null): LoggedEvent => ({
    sessionId,
    addressedTo: null,
    record: { id: 1, globalEventId: 1, subjectRevision: 1, serverId: "s", kind, subjectId: "x", createdAt: "", payload: {} },
  });

  test("kind lists accept exact kinds and prefix patterns", () => {
    const kinds = parseKindList(" session.* , project.created ,");
    expect(kinds).toEqual(["session.*", "project.created"]);
    expect(matchesFilter(event("session.message.delta", null), { kinds })).toBe(true);
    expect(matchesFilter(event("project.created", null), { kinds })).toBe(true);
    expect(matchesFilter(event("project.updated", null), { kinds })).toBe(false);
    expect(matchesFilter(event("sessions.odd", null), { kinds })).toBe(false);
    expect(parseKindList(" , ")).toBeUndefined();
  });

  test("a session filter keeps only that session's events", () => {
    expect(matchesFilter(event("x.y", "ses_1"), { sessionId: "ses_1" })).toBe(true);
    expect(matchesFilter(event("x.y", "ses_2"), { sessionId: "ses_1" })).toBe(false);
    expect(matchesFilter(event("x.y", null), { sessionId: "ses_1" })).toBe(false);
  });
});

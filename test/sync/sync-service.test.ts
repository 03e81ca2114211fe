import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SyncRepository } from "../../src/store/sync-repository.ts";
import type { EventLog } from "../../src/events/event-log.ts";
import { SyncService, compareTimestamps } from "../../src/sync/sync-service.ts";
import { SyncNamespace } from "../../src/schemas/sync.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";
import { InvalidInputError } from "../../src/errors.ts";
import { systemClock } from "../../src/clock.ts";

let db: TestStore;
let log: EventLog;
let sync: SyncService;
let now = 1_000;
beforeEach(() => {
  db = openTestStore();
  log = db.log;
  now = 1_000;
  const clock = { ...systemClock, now: () => now };
  sync = new SyncService({ store: db.store, entries: new SyncRepository(db.store), events: log, clock, deviceId: "mch_here" });
});
afterEach(() => db.close());

const at = (wallMs: number, counter = 0, deviceId = "a") => ({ wallMs, counter, deviceId });

describe("sync entries", () => {
  test("timestamps order by wall clock, then counter, then device", () => {
    expect(compareTimestamps(at(1), at(2))).toBe(-1);
    expect(compareTimestamps(at(2, 0), at(2, 1))).toBe(-1);
    expect(compareTimestamps(at(2, 1, "b"), at(2, 1, "a"))).toBe(1);
    expect(compareTimestamps(at(2, 1, "a"), at(2, 1, "a"))).toBe(0);
  });

  test("a newer write wins, an older or equal one changes nothing", () => {
    sync.put("ui", { entries: [{ key: "theme", value: "dark", timestamp: at(10) }] });
    sync.put("ui", { entries: [{ key: "theme", value: "light", timestamp: at(5) }] });
    sync.put("ui", { entries: [{ key: "theme", value: "blue", timestamp: at(10) }] });
    const result = sync.get("ui");
    assertMatchesSchema(SyncNamespace, result);
    expect(result.entries).toEqual([{ key: "theme", value: "dark", timestamp: at(10), deleted: false }]);
    expect(log.cursor()).toBe(1);
  });

  test("values keep their JSON shape", () => {
    const value = { nested: [1, "two", { three: null }], flag: true };
    expect(sync.put("ui", { entries: [{ key: "layout", value, timestamp: at(1) }] }).entries[0]!.value).toEqual(value);
  });

  test("null deletes and leaves a tombstone an older write cannot undo", () => {
    sync.put("ui", { entries: [{ key: "k", value: 1, timestamp: at(1) }] });
    sync.put("ui", { entries: [{ key: "k", value: null, timestamp: at(2) }] });
    sync.put("ui", { entries: [{ key: "k", value: 3, timestamp: at(1, 5) }] });
    expect(sync.get("ui").entries).toEqual([{ key: "k", value: null, timestamp: at(2), deleted: true }]);
  });

  test("one event per accepted submission, naming the changed keys", () => {
    sync.put("ui", {
      entries: [
        { key: "a", value: 1, timestamp: at(1) },
        { key: "b", value: 1, timestamp: at(1) },
        { key: "a", value: 2, timestamp: at(2) },
      ],
    });
    const events = log.read(0, 10);
    expect(events).toHaveLength(1);
    expect(events[0]!.record.kind).toBe("sync.changed");
    expect(events[0]!.record.subjectId).toBe("sync:ui");
    expect(events[0]!.record.payload).toEqual({ namespace: "ui", keys: ["a", "b"] });
    expect(sync.get("ui").entries.find((e) => e.key === "a")!.value).toBe(2);
  });

  test("a key or device id with a lone surrogate is refused: stored as UTF-8, \\uD800 and \\uDC00 would be one key", () => {
    expect(() =>
      sync.put("ui", {
        entries: [
          { key: "ok", value: 1, timestamp: at(1) },
          { key: "\uD800", value: 1, timestamp: at(1) },
        ],
      }),
    ).toThrow(new InvalidInputError('body field "entries[1].key" is invalid: it holds a lone UTF-16 surrogate, which is not text'));
    expect(() => sync.put("ui", { entries: [{ key: "k", value: 1, timestamp: at(1, 0, "phone\uDC00") }] })).toThrow(
      'body field "entries[0].timestamp.deviceId" is invalid',
    );
    expect(sync.get("ui").entries).toEqual([]);
    expect(log.cursor()).toBe(0);
    // Surrogate pairs are ordinary text.
    sync.put("ui", { entries: [{ key: "\uD83D\uDE00", value: 1, timestamp: at(1, 0, "\uD83D\uDCF1") }] });
    expect(sync.get("ui").entries.map((entry) => entry.key)).toEqual(["\u{1F600}"]);
  });

  test("namespaces are separate", () => {
    sync.put("one", { entries: [{ key: "k", value: 1, timestamp: at(1) }] });
    expect(sync.get("two").entries).toEqual([]);
  });

  test("Atrium's own write is stamped newer than the stored entry, even one from a machine whose clock is ahead", () => {
    sync.write("@own", "k", { v: 1 });
    expect(sync.get("@own").entries[0]).toEqual({ key: "k", value: { v: 1 }, timestamp: at(1_000, 0, "mch_here"), deleted: false });
    sync.put("@own", { entries: [{ key: "k", value: { v: 2 }, timestamp: at(5_000, 3, "mch_ahead") }] });
    sync.write("@own", "k", null);
    expect(sync.get("@own").entries[0]).toEqual({ key: "k", value: null, timestamp: at(5_000, 4, "mch_here"), deleted: true });
    now = 9_000;
    sync.write("@own", "k", 3);
    expect(sync.get("@own").entries[0]!.timestamp).toEqual(at(9_000, 0, "mch_here"));
  });

  test("an observer hears of the entries another machine changed, and not of Atrium's own writes", () => {
    const heard: unknown[] = [];
    sync.observe("@own", (entry) => heard.push([entry.key, entry.value, entry.deleted]));
    sync.write("@own", "mine", 1);
    sync.put("@own", { entries: [{ key: "theirs", value: 2, timestamp: at(1) }] });
    sync.put("@own", { entries: [{ key: "theirs", value: 0, timestamp: at(0) }] });
    sync.put("@own", { entries: [{ key: "mine", value: null, timestamp: at(2_000) }] });
    sync.put("other", { entries: [{ key: "k", value: 1, timestamp: at(1) }] });
    expect(heard).toEqual([
      ["theirs", 2, false],
      ["mine", null, true],
    ]);
  });

  test("changes after an event cursor: every namespace, newest change per key, and the cursor to go on from", () => {
    sync.put("ui", { entries: [{ key: "a", value: 1, timestamp: at(1) }] });
    sync.put("ui", { entries: [{ key: "b", value: 1, timestamp: at(1) }] });
    sync.put("keys", { entries: [{ key: "a", value: null, timestamp: at(1) }] });
    sync.put("ui", { entries: [{ key: "a", value: 2, timestamp: at(2) }] });
    const all = sync.changesAfter(-1);
    expect(all.entries.map((entry) => [entry.namespace, entry.key, entry.value, entry.deleted])).toEqual([
      ["ui", "b", 1, false],
      ["keys", "a", null, true],
      ["ui", "a", 2, false],
    ]);
    expect(all).toMatchObject({ cursor: 4, more: false });
    expect(sync.changesAfter(3).entries.map((entry) => entry.key)).toEqual(["a"]);
    expect(sync.changesAfter(4)).toEqual({ entries: [], cursor: 4, more: false });
  });

  test("changes come a page of whole events at a time, and a page never ends inside one event", () => {
    for (let i = 0; i < 101; i++) {
      sync.put("ui", {
        entries: [
          { key: `k${i}`, value: i, timestamp: at(1) },
          { key: `j${i}`, value: i, timestamp: at(1) },
        ],
      });
    }
    const first = sync.changesAfter(-1);
    expect(first.entries).toHaveLength(200);
    expect(first).toMatchObject({ cursor: 100, more: true });
    const second = sync.changesAfter(first.cursor);
    expect(second.entries.map((entry) => entry.key)).toEqual(["j100", "k100"]);
    expect(second).toMatchObject({ cursor: 101, more: false });
  });
});

/**
 * Migration 15 indexes what was said before it: prompts and finished replies (their text in the row, or
 * in their delta events), not a reply still generating, which its triggers index when it ends. Migration
 * 16 adds the indexes the search reads titles and a session's rows from, changing no result.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { migrate, migrations } from "../../src/store/migrations.ts";
import { RANKED_MATCHES, SessionSearchRepository } from "../../src/store/session-search-repository.ts";
import { ConversationRepository } from "../../src/store/conversation-repository.ts";
import { SESSION_NAME_HOLDS } from "../../src/store/session-repository.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

/** The migrations up to the two these tests are about (later ones are not theirs to count). */
const throughSearchIndexes = migrations.filter((migration) => migration.version <= 16);

let dir: ReturnType<typeof makeTempDir>;
let store: Store;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => {
  store.close();
  dir.remove();
});

/** Rows as the schema before migration 15 held them, written with plain SQL (its repositories are gone). */
function writeOldConversation(db: Store["db"]) {
  db.exec(`INSERT INTO sessions (id, project_id, harness_id, sidebar_state, created_at, updated_at, data)
    VALUES ('ses_old', 'prj_1', 'echo', 'idle', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{"id":"ses_old","title":"Old one"}')`);
  const item = db.query(
    `INSERT INTO conversation_items (session_id, seq, id, role, message_id, text, created_at, is_generating, attachments, stop_reason, text_in_deltas)
     VALUES ('ses_old', ?, ?, ?, NULL, ?, '2026-01-01T00:00:00.000Z', ?, '[]', NULL, ?)`,
  );
  item.run(1, "msg_prompt", "user", "where do pelicans nest", 0, 0);
  // A reply folded into its row by compaction, one whose text is its delta events, and one cut off while streaming.
  item.run(2, "msg_folded", "assistant", "On islands, mostly.", 0, 0);
  item.run(3, "msg_streamed", "assistant", "", 0, 1);
  item.run(4, "msg_generating", "assistant", "", 1, 1);
  const delta = db.query(
    `INSERT INTO events (session_id, session_seq, subject_id, subject_revision, kind, payload, created_at)
     VALUES ('ses_old', ?, 'ses_old', ?, 'session.message.delta', ?, '2026-01-01T00:00:00.000Z')`,
  );
  const deltas: Array<[string, string]> = [
    ["msg_streamed", "Their colonies "],
    ["msg_generating", "albatross "],
    ["msg_streamed", "crowd the shoreline."],
  ];
  for (const [index, [itemId, text]] of deltas.entries()) delta.run(index + 1, index + 1, JSON.stringify({ itemId, text }));
}

test("a database written before the index gets its prompts and finished replies indexed; a reply cut off is indexed when it ends", () => {
  store = Store.open(join(dir.path, "atrium.db"));
  migrate(store, { list: migrations.filter((migration) => migration.version < 15) });
  writeOldConversation(store.db);

  const report = migrate(store, { list: throughSearchIndexes });
  expect(report.applied.map((step) => step.version)).toEqual([15, 16]);
  const search = new SessionSearchRepository(store);
  const find = (text: string) => search.search({ archived: false }, text, 10).items.map(({ session, match }) => [session.id, match?.itemId]);
  expect(find("pelicans")).toEqual([["ses_old", "msg_prompt"]]);
  expect(find("islands")).toEqual([["ses_old", "msg_folded"]]);
  expect(find("colonies shoreline")).toEqual([["ses_old", "msg_streamed"]]);
  expect(find("albatross")).toEqual([]);
  // Sessions from before archiving are not archived.
  expect(search.search({ archived: true }, "pelicans", 10).items).toEqual([]);

  // The restart marks the cut-off reply interrupted: it ends, and the trigger indexes it.
  new ConversationRepository(store).finish("msg_generating", "interrupted");
  expect(find("albatross")).toEqual([["ses_old", "msg_generating"]]);
});

/** Sessions at schema 15 (plain SQL, as that schema held them): titles, and prompts its triggers index. */
function writeSessions(db: Store["db"]) {
  const session = db.query(
    `INSERT INTO sessions (id, project_id, harness_id, sidebar_state, created_at, updated_at, data) VALUES (?, 'prj_1', 'echo', 'idle', ?, ?, ?)`,
  );
  const item = db.query(
    `INSERT INTO conversation_items (session_id, seq, id, role, message_id, text, created_at, is_generating, attachments, stop_reason, text_in_deltas)
     VALUES (?, ?, ?, 'user', NULL, ?, '2026-01-01T00:00:00.000Z', 0, '[]', NULL, 0)`,
  );
  const said = ["a heron by the river", "the heron again, and a kingfisher", "nothing about birds", "Heron or egret? A heron."];
  for (let index = 0; index < 8; index++) {
    const id = `ses_${index}`;
    const at = `2026-01-0${index + 1}T00:00:00.000Z`;
    session.run(id, at, at, JSON.stringify({ id, title: index % 3 === 0 ? "Heron notes" : `Session ${index}` }));
    for (let seq = 1; seq <= index % 4; seq++) item.run(id, seq, `msg_${index}_${seq}`, said[(index + seq) % said.length]!);
  }
}

test("migration 16 only adds indexes: every page of a search is the same before and after it, and titles are read from the index", () => {
  store = Store.open(join(dir.path, "atrium.db"));
  migrate(store, { list: migrations.filter((migration) => migration.version <= 15) });
  writeSessions(store.db);
  const search = new SessionSearchRepository(store);
  const everyPage = (text: string) => {
    const found: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = search.search({ archived: false }, text, 2, cursor);
      found.push(...page.items.map(({ session, match }) => [session.id, match]));
      cursor = page.next ?? undefined;
    } while (cursor);
    return found;
  };
  const searches = ["heron", "her", "kingfisher river", "birds"];
  const before = searches.map(everyPage);
  expect(before[0]).toHaveLength(5);

  expect(migrate(store, { list: throughSearchIndexes }).applied.map((step) => step.version)).toEqual([16]);
  expect(searches.map(everyPage)).toEqual(before);
  const plan = store.db
    .query<{ detail: string }, [string, string]>(`EXPLAIN QUERY PLAN SELECT id FROM sessions WHERE archived_at IS NULL AND ${SESSION_NAME_HOLDS}`)
    .all("heron", "heron");
  expect(plan.map((step) => step.detail).join("\n")).toContain("COVERING INDEX sessions_by_title");
});

test("a word in more than RANKED_MATCHES items: title matches first, then sessions by their newest match (not ranked), every page once", () => {
  store = Store.open(join(dir.path, "atrium.db"));
  migrate(store);
  const sessions = 30;
  const perSession = Math.ceil((RANKED_MATCHES + 1) / sessions);
  const session = store.db.query(
    `INSERT INTO sessions (id, project_id, harness_id, sidebar_state, created_at, updated_at, data) VALUES (?, 'prj_1', 'echo', 'idle', ?, ?, ?)`,
  );
  const item = store.db.query(
    `INSERT INTO conversation_items (session_id, seq, id, role, message_id, text, created_at, is_generating, attachments, stop_reason, text_in_deltas)
     VALUES (?, ?, ?, 'user', NULL, ?, '2026-01-01T00:00:00.000Z', 0, '[]', NULL, 0)`,
  );
  // Written session by session, the first one last active: the newest match is the last session's.
  store.transaction(() => {
    for (let index = 0; index < sessions; index++) {
      const id = `ses_${String(index).padStart(2, "0")}`;
      const at = new Date(Date.UTC(2026, 0, 1) - index * 60_000).toISOString();
      session.run(id, at, at, JSON.stringify({ id, title: index === 5 || index === 20 ? "Heron notes" : `Session ${index}` }));
      for (let seq = 1; seq <= perSession; seq++) item.run(id, seq, `msg_${index}_${seq}`, `a heron, seen ${seq} times`);
    }
  });
  const search = new SessionSearchRepository(store);
  const pages: Array<Array<[string, string | undefined]>> = [];
  let cursor: string | undefined;
  do {
    const page = search.search({ archived: false }, "heron", 7, cursor);
    pages.push(page.items.map(({ session, match }) => [session.id, match?.itemId]));
    cursor = page.next ?? undefined;
  } while (cursor);

  const newestFirst = Array.from({ length: sessions }, (_, index) => sessions - 1 - index).filter((index) => index !== 5 && index !== 20);
  expect(pages.flat()).toEqual([5, 20, ...newestFirst].map((index) => [`ses_${String(index).padStart(2, "0")}`, `msg_${index}_${perSession}`]));
  expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 7, 2]);
  const first = search.search({ archived: false }, "heron", 1).items[0]!.match!;
  expect(first.highlights.map(({ start, end }) => first.snippet.slice(start, end))).toEqual(["heron"]);
});

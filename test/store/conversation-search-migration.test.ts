/**
 * Migration 15 indexes what was said before it: prompts and finished replies (their text in the row, or
 * in their delta events), not a reply still generating, which its triggers index when it ends.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { Store } from "../../src/store/database.ts";
import { migrate, migrations } from "../../src/store/migrations.ts";
import { SessionSearchRepository } from "../../src/store/session-search-repository.ts";
import { ConversationRepository } from "../../src/store/conversation-repository.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

const dir = makeTempDir();
let store: Store;
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

  const report = migrate(store);
  expect(report.applied.map((step) => step.version)).toEqual([15]);
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

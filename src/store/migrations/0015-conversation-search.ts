import type { Migration } from "../migrations.ts";

/** A conversation item's text: a streamed reply's is its delta events joined (as ConversationRepository reads it). */
const itemText = (item: string) => `CASE WHEN ${item}.text_in_deltas = 1 THEN
    COALESCE((SELECT group_concat(json_extract(payload, '$.text'), '' ORDER BY global_id) FROM events
      WHERE kind = 'session.message.delta' AND json_extract(payload, '$.itemId') = +${item}.id), '')
    ELSE ${item}.text END`;

/** Indexes a finished item (a prompt as it is added, a reply once it ends), unless it already is. */
const indexItem = (item: string) => `
      INSERT OR IGNORE INTO conversation_text_rows (session_id, item_id) VALUES (${item}.session_id, ${item}.id);
      INSERT INTO conversation_text (rowid, text)
        SELECT id, ${itemText(item)} FROM conversation_text_rows
        WHERE item_id = ${item}.id AND NOT EXISTS (SELECT 1 FROM conversation_text WHERE rowid = conversation_text_rows.id);`;

export const conversationSearchMigration: Migration = {
  version: 15,
  name: "conversation search: a full-text index of prompts and replies, kept by triggers; sessions can be archived",
  sql: `
    ALTER TABLE sessions ADD COLUMN archived_at TEXT;

    -- The full-text index's rows: one per finished conversation item. Its own integer key, because
    -- VACUUM may renumber conversation_items' implicit rowids, and the index is found by it.
    CREATE TABLE conversation_text_rows (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL,
      item_id TEXT NOT NULL UNIQUE
    );
    -- Case and accents ignored (unicode61, remove_diacritics 2); the text is kept in the index for snippets.
    CREATE VIRTUAL TABLE conversation_text USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
    -- A deleted session's words leave the index at once, not at the next merge (delete means gone).
    INSERT INTO conversation_text (conversation_text, rank) VALUES ('secure-delete', 1);

    -- Kept in step in the transaction that writes the item: a prompt when it joins the conversation,
    -- a reply when it ends (its text is complete then; while it streams it is not searchable).
    CREATE TRIGGER conversation_text_of_prompt AFTER INSERT ON conversation_items WHEN NEW.is_generating = 0
    BEGIN ${indexItem("NEW")}
    END;
    CREATE TRIGGER conversation_text_of_reply AFTER UPDATE OF is_generating ON conversation_items
      WHEN OLD.is_generating = 1 AND NEW.is_generating = 0
    BEGIN ${indexItem("NEW")}
    END;
    CREATE TRIGGER conversation_text_of_deleted AFTER DELETE ON conversation_items
    BEGIN
      DELETE FROM conversation_text WHERE rowid = (SELECT id FROM conversation_text_rows WHERE item_id = OLD.id);
      DELETE FROM conversation_text_rows WHERE item_id = OLD.id;
    END;

    -- What was said before this version.
    INSERT INTO conversation_text_rows (session_id, item_id) SELECT session_id, id FROM conversation_items WHERE is_generating = 0 ORDER BY session_id, seq;
    INSERT INTO conversation_text (rowid, text)
      SELECT conversation_text_rows.id, ${itemText("item")} FROM conversation_text_rows JOIN conversation_items AS item ON item.id = conversation_text_rows.item_id;
  `,
};

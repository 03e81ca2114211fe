import type { Migration } from "../migrations.ts";

export const replyDeltasMigration: Migration = {
  version: 8,
  name: "reply deltas: a streamed reply's text is its delta events joined, found by item through an index",
  sql: `
    -- 1: the item's text is its session.message.delta events joined (replies from now on); 0: the text column.
    ALTER TABLE conversation_items ADD COLUMN text_in_deltas INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX events_delta_by_item ON events (json_extract(payload, '$.itemId'), global_id) WHERE kind = 'session.message.delta';
  `,
};

import type { Migration } from "../migrations.ts";

export const searchIndexesMigration: Migration = {
  version: 16,
  name: "search indexes: sessions by title as a search matches it, and the conversation index's rows by session",
  sql: `
    -- A search matches the title as SESSION_NAME_HOLDS folds it; without this index that meant parsing
    -- every session's JSON record for every search (title matches come first, so none can stop early).
    -- It holds every column a search filters on, so the title part of a search reads it alone.
    CREATE INDEX sessions_by_title ON sessions (archived_at, lower(json_extract(data, '$.title')), updated_at, id, project_id, harness_id, sidebar_state);
    -- The rows of the sessions a search found by title, to find where their conversation matched.
    CREATE INDEX conversation_text_rows_by_session ON conversation_text_rows (session_id, id);
  `,
};

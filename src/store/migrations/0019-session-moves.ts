import type { Migration } from "../migrations.ts";

export const sessionMovesMigration: Migration = {
  version: 19,
  name: "session moves: a session taken to a paired machine, recorded on both sides until it is live on one",
  sql: `
    CREATE TABLE session_moves (
      id TEXT PRIMARY KEY,
      -- 'source' (the session leaves) or 'target' (it arrives)
      role TEXT NOT NULL,
      -- This side's session: the one leaving, or the one the target makes.
      session_id TEXT NOT NULL,
      peer_machine_id TEXT NOT NULL,
      peer_session_id TEXT NOT NULL,
      -- source: 'copying', 'committed' (the decision), 'done' or 'aborted'; target: 'staged', 'live' or 'dropped'
      state TEXT NOT NULL,
      -- The target's copy of the session while staged (JSON), dropped once live.
      package TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX session_moves_unfinished ON session_moves (state) WHERE state IN ('copying', 'committed', 'staged');
  `,
};

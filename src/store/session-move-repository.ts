import type { Store } from "./database.ts";

export type SourceMoveState = "copying" | "committed" | "done" | "aborted";
export type TargetMoveState = "staged" | "live" | "dropped";

/** One side's record of a session's move to another machine. */
export interface StoredMove {
  id: string;
  role: "source" | "target";
  /** This side's session: the one leaving, or the one arriving. */
  sessionId: string;
  peerMachineId: string;
  peerSessionId: string;
  state: SourceMoveState | TargetMoveState;
  /** The target's copy of the session (JSON) while it is staged. */
  package: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  role: "source" | "target";
  session_id: string;
  peer_machine_id: string;
  peer_session_id: string;
  state: StoredMove["state"];
  package: string | null;
  created_at: string;
  updated_at: string;
}

const toMove = (row: Row): StoredMove => ({
  id: row.id,
  role: row.role,
  sessionId: row.session_id,
  peerMachineId: row.peer_machine_id,
  peerSessionId: row.peer_session_id,
  state: row.state,
  package: row.package,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The moves of sessions between machines, on either side; a move is unfinished until it is done, aborted, live or dropped. */
export class SessionMoveRepository {
  constructor(private readonly store: Store) {}

  insert(move: StoredMove): void {
    this.store.db
      .query(
        `INSERT INTO session_moves (id, role, session_id, peer_machine_id, peer_session_id, state, package, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(move.id, move.role, move.sessionId, move.peerMachineId, move.peerSessionId, move.state, move.package, move.createdAt, move.updatedAt);
  }

  get(id: string): StoredMove | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT * FROM session_moves WHERE id = ?").get(id);
    return row ? toMove(row) : undefined;
  }

  /** Sets a move's state; leaving `staged` drops the copy it held. */
  setState(id: string, state: StoredMove["state"], at: string): void {
    this.store.db
      .query("UPDATE session_moves SET state = ?, package = CASE WHEN ? = 'staged' THEN package ELSE NULL END, updated_at = ? WHERE id = ?")
      .run(state, state, at, id);
  }

  /** Whether a session is one a staged move will make live here (its worktree is made already). */
  isStaged(sessionId: string): boolean {
    return this.store.db.query("SELECT 1 FROM session_moves WHERE session_id = ? AND state = 'staged'").get(sessionId) !== null;
  }

  unfinished(): StoredMove[] {
    return this.store.db.query<Row, []>("SELECT * FROM session_moves WHERE state IN ('copying', 'committed', 'staged') ORDER BY created_at").all().map(toMove);
  }
}

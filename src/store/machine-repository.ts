import type { Store } from "./database.ts";

/** A paired machine as stored here. */
export interface StoredMachine {
  machineId: string;
  name: string;
  os: string;
  url: string;
  /** The token the peer minted for this server: how this server calls it. */
  peerToken: string;
  addedBy: string;
  addedAt: string;
  lastSeenAt: string | null;
  /** The peer's event cursor up to which its sync entries have been pulled; -1 before the first pull. */
  pulledCursor: number;
}

interface MachineRow {
  machine_id: string;
  name: string;
  os: string;
  url: string;
  peer_token: string;
  added_by: string;
  added_at: string;
  last_seen_at: string | null;
  pulled_cursor: number;
}

const toMachine = (row: MachineRow): StoredMachine => ({
  machineId: row.machine_id,
  name: row.name,
  os: row.os,
  url: row.url,
  peerToken: row.peer_token,
  addedBy: row.added_by,
  addedAt: row.added_at,
  lastSeenAt: row.last_seen_at,
  pulledCursor: row.pulled_cursor,
});

const COLUMNS = "machine_id, name, os, url, peer_token, added_by, added_at, last_seen_at, pulled_cursor";

/** Paired machines and the one-use codes that pair them (kept as hashes). */
export class MachineRepository {
  constructor(private readonly store: Store) {}

  list(): StoredMachine[] {
    return this.store.db.query<MachineRow, []>(`SELECT ${COLUMNS} FROM machines ORDER BY added_at, machine_id`).all().map(toMachine);
  }

  get(machineId: string): StoredMachine | undefined {
    const row = this.store.db.query<MachineRow, [string]>(`SELECT ${COLUMNS} FROM machines WHERE machine_id = ?`).get(machineId);
    return row ? toMachine(row) : undefined;
  }

  /** A machine paired again keeps nothing of before: its cursor starts over with its new token. */
  save(machine: StoredMachine): void {
    this.store.db
      .query(
        `INSERT OR REPLACE INTO machines (${COLUMNS})
         VALUES ($machineId, $name, $os, $url, $peerToken, $addedBy, $addedAt, $lastSeenAt, $pulledCursor)`,
      )
      .run({ ...machine });
  }

  describe(machineId: string, about: { name: string; os: string; url: string }): void {
    this.store.db.query("UPDATE machines SET name = ?, os = ?, url = ? WHERE machine_id = ?").run(about.name, about.os, about.url, machineId);
  }

  markSeen(machineId: string, at: string): void {
    this.store.db.query("UPDATE machines SET last_seen_at = ? WHERE machine_id = ?").run(at, machineId);
  }

  /** Moves the pulled cursor forward only: a slow pull that ends after a newer one must not move it back. */
  advanceCursor(machineId: string, cursor: number): void {
    this.store.db.query("UPDATE machines SET pulled_cursor = ?1 WHERE machine_id = ?2 AND pulled_cursor < ?1").run(cursor, machineId);
  }

  remove(machineId: string): boolean {
    return this.store.db.query("DELETE FROM machines WHERE machine_id = ?").run(machineId).changes === 1;
  }

  insertCode(codeHash: string, createdBy: string, expiresAt: string): void {
    this.store.db.query("INSERT INTO pairing_codes (code_hash, created_by, expires_at) VALUES (?, ?, ?)").run(codeHash, createdBy, expiresAt);
  }

  /** Takes a code that has not expired, removing it (one use); answers who made it, or undefined. */
  takeCode(codeHash: string, now: string): string | undefined {
    this.store.db.query("DELETE FROM pairing_codes WHERE expires_at <= ?").run(now);
    const row = this.store.db.query<{ created_by: string }, [string]>("DELETE FROM pairing_codes WHERE code_hash = ? RETURNING created_by").get(codeHash);
    return row?.created_by;
  }
}

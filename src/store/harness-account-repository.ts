import type { Store } from "./database.ts";

/** An account row: a profile Atrium made (with its config home), or the default account's label. */
export interface HarnessAccountRow {
  id: string;
  harnessId: string;
  label: string | null;
  /** Null for the default account, whose config home is the harness's own. */
  configHome: string | null;
  createdAt: string;
}

interface Row {
  id: string;
  harness_id: string;
  label: string | null;
  config_home: string | null;
  created_at: string;
}

const toAccount = (row: Row): HarnessAccountRow => ({
  id: row.id,
  harnessId: row.harness_id,
  label: row.label,
  configHome: row.config_home,
  createdAt: row.created_at,
});

export class HarnessAccountRepository {
  constructor(private readonly store: Store) {}

  listOf(harnessId: string): HarnessAccountRow[] {
    return this.store.db.query<Row, [string]>("SELECT * FROM harness_accounts WHERE harness_id = ? ORDER BY created_at, id").all(harnessId).map(toAccount);
  }

  /** Adds the row, or replaces the label of an existing one. */
  save(account: HarnessAccountRow): void {
    this.store.db
      .query(
        `INSERT INTO harness_accounts (id, harness_id, label, config_home, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET label = excluded.label`,
      )
      .run(account.id, account.harnessId, account.label, account.configHome, account.createdAt);
  }

  remove(id: string): void {
    this.store.db.query("DELETE FROM harness_accounts WHERE id = ?").run(id);
    this.store.db.query("DELETE FROM harness_active_accounts WHERE account_id = ?").run(id);
  }

  activeOf(harnessId: string): string | undefined {
    return (
      this.store.db.query<{ account_id: string }, [string]>("SELECT account_id FROM harness_active_accounts WHERE harness_id = ?").get(harnessId)?.account_id ??
      undefined
    );
  }

  setActive(harnessId: string, accountId: string): void {
    this.store.db
      .query(
        `INSERT INTO harness_active_accounts (harness_id, account_id) VALUES (?, ?)
         ON CONFLICT (harness_id) DO UPDATE SET account_id = excluded.account_id`,
      )
      .run(harnessId, accountId);
  }
}

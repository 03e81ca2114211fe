import type { Store } from "./database.ts";

/** The user's per-harness enable/disable override; no row means "follow the default". */
export class HarnessSettingsRepository {
  constructor(private readonly store: Store) {}

  all(): Map<string, boolean> {
    const rows = this.store.db.query<{ harness_id: string; enabled: number }, []>("SELECT harness_id, enabled FROM harness_settings").all();
    return new Map(rows.map((row) => [row.harness_id, row.enabled === 1]));
  }

  set(harnessId: string, enabled: boolean | null): void {
    if (enabled === null) {
      this.store.db.query("DELETE FROM harness_settings WHERE harness_id = ?").run(harnessId);
      return;
    }
    this.store.db
      .query("INSERT INTO harness_settings (harness_id, enabled) VALUES (?, ?) ON CONFLICT (harness_id) DO UPDATE SET enabled = excluded.enabled")
      .run(harnessId, enabled ? 1 : 0);
  }
}

import type { PluginManifest } from "../schemas/plugins.ts";
import type { Store } from "./database.ts";

/** One installed version of a plugin: what it is, where, and what was consented to. */
export interface InstalledVersion {
  manifest: PluginManifest;
  path: string;
  sourceCommit: string | null;
  consentKey: string;
}

export interface StoredPlugin extends InstalledVersion {
  id: string;
  source: string;
  enabled: boolean;
  /** The version before the last update, kept to restore. */
  previous: InstalledVersion | null;
  installedAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  manifest: string;
  source: string;
  source_commit: string | null;
  consent_key: string;
  enabled: number;
  path: string;
  previous: string | null;
  installed_at: string;
  updated_at: string;
}

const toPlugin = (row: Row): StoredPlugin => ({
  id: row.id,
  manifest: JSON.parse(row.manifest) as PluginManifest,
  source: row.source,
  sourceCommit: row.source_commit,
  consentKey: row.consent_key,
  enabled: row.enabled === 1,
  path: row.path,
  previous: row.previous ? (JSON.parse(row.previous) as InstalledVersion) : null,
  installedAt: row.installed_at,
  updatedAt: row.updated_at,
});

const COLUMNS = "id, manifest, source, source_commit, consent_key, enabled, path, previous, installed_at, updated_at";

/** Installed plugins. */
export class PluginRepository {
  constructor(private readonly store: Store) {}

  list(): StoredPlugin[] {
    return this.store.db.query<Row, []>(`SELECT ${COLUMNS} FROM plugins ORDER BY id`).all().map(toPlugin);
  }

  get(id: string): StoredPlugin | undefined {
    const row = this.store.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM plugins WHERE id = ?`).get(id);
    return row ? toPlugin(row) : undefined;
  }

  save(plugin: StoredPlugin): void {
    this.store.db
      .query(
        `INSERT INTO plugins (${COLUMNS}) VALUES ($id, $manifest, $source, $sourceCommit, $consentKey, $enabled, $path, $previous, $installedAt, $updatedAt)
         ON CONFLICT (id) DO UPDATE SET manifest = excluded.manifest, source = excluded.source, source_commit = excluded.source_commit,
           consent_key = excluded.consent_key, enabled = excluded.enabled, path = excluded.path, previous = excluded.previous, updated_at = excluded.updated_at`,
      )
      .run({
        ...plugin,
        manifest: JSON.stringify(plugin.manifest),
        enabled: plugin.enabled ? 1 : 0,
        previous: plugin.previous ? JSON.stringify(plugin.previous) : null,
      });
  }

  remove(id: string): void {
    this.store.db.query("DELETE FROM plugins WHERE id = ?").run(id);
  }
}

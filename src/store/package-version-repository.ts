import type { Store } from "./database.ts";

export interface StoredPackageVersion {
  package: string;
  version: string | null;
  notes: string | null;
  checkedAt: string;
  expiresAtMs: number;
}

interface Row {
  package: string;
  version: string | null;
  notes: string | null;
  checked_at: string;
  expires_at: number;
}

/** What the npm registry last said of each package's newest version. */
export class PackageVersionRepository {
  constructor(private readonly store: Store) {}

  all(): StoredPackageVersion[] {
    return this.store.db
      .query<Row, []>("SELECT package, version, notes, checked_at, expires_at FROM package_versions")
      .all()
      .map((row) => ({ package: row.package, version: row.version, notes: row.notes, checkedAt: row.checked_at, expiresAtMs: row.expires_at }));
  }

  save(entry: StoredPackageVersion): void {
    this.store.db
      .query(
        `INSERT INTO package_versions (package, version, notes, checked_at, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (package) DO UPDATE SET version = excluded.version, notes = excluded.notes, checked_at = excluded.checked_at, expires_at = excluded.expires_at`,
      )
      .run(entry.package, entry.version, entry.notes, entry.checkedAt, entry.expiresAtMs);
  }
}

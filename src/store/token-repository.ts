import type { Store } from "./database.ts";

export interface StoredToken {
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

interface TokenRow {
  name: string;
  created_at: string;
  last_used_at: string | null;
}

const toStoredToken = (row: TokenRow): StoredToken => ({
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** Named access tokens, kept only as hashes. */
export class TokenRepository {
  constructor(private readonly store: Store) {}

  /** Returns false when the name is taken. */
  insert(name: string, tokenHash: string, createdAt: string): boolean {
    const result = this.store.db
      .query("INSERT INTO access_tokens (name, token_hash, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING")
      .run(name, tokenHash, createdAt);
    return result.changes === 1;
  }

  list(): StoredToken[] {
    return this.store.db.query<TokenRow, []>("SELECT name, created_at, last_used_at FROM access_tokens ORDER BY name").all().map(toStoredToken);
  }

  findNameByHash(tokenHash: string): string | undefined {
    return this.store.db.query<{ name: string }, [string]>("SELECT name FROM access_tokens WHERE token_hash = ?").get(tokenHash)?.name;
  }

  touch(name: string, at: string): void {
    this.store.db.query("UPDATE access_tokens SET last_used_at = ? WHERE name = ?").run(at, name);
  }

  /** Returns false when no token had that name. */
  delete(name: string): boolean {
    return this.store.db.query("DELETE FROM access_tokens WHERE name = ?").run(name).changes === 1;
  }
}

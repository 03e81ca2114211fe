import type { PushEventKind } from "../schemas/push.ts";
import type { Store } from "./database.ts";

export interface StoredPushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  tokenName: string;
  name: string | null;
  events: PushEventKind[];
  createdAt: string;
  lastSuccessAt: string | null;
  lastError: string | null;
}

interface Row {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  token_name: string;
  name: string | null;
  events: string;
  created_at: string;
  last_success_at: string | null;
  last_error: string | null;
}

const COLUMNS = "id, endpoint, p256dh, auth, token_name, name, events, created_at, last_success_at, last_error";

const toSubscription = (row: Row): StoredPushSubscription => ({
  id: row.id,
  endpoint: row.endpoint,
  p256dh: row.p256dh,
  auth: row.auth,
  tokenName: row.token_name,
  name: row.name,
  events: JSON.parse(row.events) as PushEventKind[],
  createdAt: row.created_at,
  lastSuccessAt: row.last_success_at,
  lastError: row.last_error,
});

/**
 * The browsers Web Push notices go to. A subscription belongs to the token that made it; deleting
 * that token's row (a revocation) deletes its subscriptions too (a trigger, migration 14).
 */
export class PushSubscriptionRepository {
  constructor(private readonly store: Store) {}

  /** Oldest first; only `tokenName`'s when given. */
  list(tokenName?: string): StoredPushSubscription[] {
    if (tokenName === undefined)
      return this.store.db.query<Row, []>(`SELECT ${COLUMNS} FROM push_subscriptions ORDER BY created_at, id`).all().map(toSubscription);
    return this.store.db
      .query<Row, [string]>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE token_name = ? ORDER BY created_at, id`)
      .all(tokenName)
      .map(toSubscription);
  }

  count(tokenName: string): number {
    return this.store.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM push_subscriptions WHERE token_name = ?").get(tokenName)?.n ?? 0;
  }

  get(id: string): StoredPushSubscription | undefined {
    const row = this.store.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE id = ?`).get(id);
    return row ? toSubscription(row) : undefined;
  }

  findByEndpoint(endpoint: string): StoredPushSubscription | undefined {
    const row = this.store.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE endpoint = ?`).get(endpoint);
    return row ? toSubscription(row) : undefined;
  }

  /** Inserts, or replaces the row with the same id (a browser that subscribed again). */
  save(subscription: StoredPushSubscription): void {
    this.store.db
      .query(
        `INSERT INTO push_subscriptions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
           token_name = excluded.token_name, name = excluded.name, events = excluded.events, created_at = excluded.created_at,
           last_success_at = excluded.last_success_at, last_error = excluded.last_error`,
      )
      .run(
        subscription.id,
        subscription.endpoint,
        subscription.p256dh,
        subscription.auth,
        subscription.tokenName,
        subscription.name,
        JSON.stringify(subscription.events),
        subscription.createdAt,
        subscription.lastSuccessAt,
        subscription.lastError,
      );
  }

  /** A push the service took (201/202): the error of an earlier one is cleared. */
  recordSuccess(id: string, at: string): void {
    this.store.db.query("UPDATE push_subscriptions SET last_success_at = ?, last_error = NULL WHERE id = ?").run(at, id);
  }

  recordError(id: string, error: string): void {
    this.store.db.query("UPDATE push_subscriptions SET last_error = ? WHERE id = ?").run(error, id);
  }

  /** Returns false when there was no such subscription. */
  delete(id: string): boolean {
    return this.store.db.query("DELETE FROM push_subscriptions WHERE id = ?").run(id).changes === 1;
  }
}

import type { ClientWindowState } from "../schemas/clients.ts";
import type { Store } from "./database.ts";

export interface StoredClient {
  clientId: string;
  state: ClientWindowState;
  lastSeenAt: string;
  updatedAt: string;
}

interface Row {
  client_id: string;
  state: string;
  last_seen_at: string;
  updated_at: string;
}

const toClient = (row: Row): StoredClient => ({
  clientId: row.client_id,
  state: JSON.parse(row.state) as ClientWindowState,
  lastSeenAt: row.last_seen_at,
  updatedAt: row.updated_at,
});

/** The window state each client last reported. */
export class ClientRepository {
  constructor(private readonly store: Store) {}

  list(): StoredClient[] {
    return this.store.db.query<Row, []>("SELECT client_id, state, last_seen_at, updated_at FROM clients ORDER BY client_id").all().map(toClient);
  }

  get(clientId: string): StoredClient | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT client_id, state, last_seen_at, updated_at FROM clients WHERE client_id = ?").get(clientId);
    return row ? toClient(row) : undefined;
  }

  save(client: StoredClient): void {
    this.store.db
      .query(
        `INSERT INTO clients (client_id, state, last_seen_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET state = excluded.state, last_seen_at = excluded.last_seen_at, updated_at = excluded.updated_at`,
      )
      .run(client.clientId, JSON.stringify(client.state), client.lastSeenAt, client.updatedAt);
  }

  seen(clientId: string, at: string): void {
    this.store.db.query("UPDATE clients SET last_seen_at = ? WHERE client_id = ?").run(at, clientId);
  }
}

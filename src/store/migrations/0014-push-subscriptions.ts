import type { Migration } from "../migrations.ts";

export const pushSubscriptionsMigration: Migration = {
  version: 14,
  name: "push subscriptions: the browsers Web Push notices go to, each with the token that made it",
  sql: `
    CREATE TABLE push_subscriptions (
      id TEXT PRIMARY KEY,
      endpoint TEXT NOT NULL UNIQUE,
      -- The browser's keys (base64url): its P-256 public key and its 16-byte auth secret.
      p256dh TEXT NOT NULL,
      auth TEXT NOT NULL,
      -- The access token that made it ('admin' for the admin token).
      token_name TEXT NOT NULL,
      name TEXT,
      -- PushEventKind[] (JSON)
      events TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_success_at TEXT,
      last_error TEXT
    );
    CREATE INDEX push_subscriptions_by_token ON push_subscriptions (token_name);

    -- A revoked token's subscriptions go with it, in the same statement: \`atrium token revoke\` deletes
    -- the token's row from its own process, and the admin token (not a row) is never revoked.
    CREATE TRIGGER push_subscriptions_of_revoked_token AFTER DELETE ON access_tokens
    BEGIN
      DELETE FROM push_subscriptions WHERE token_name = OLD.name;
    END;
  `,
};

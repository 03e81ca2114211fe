import type { Store } from "./database.ts";
import type { Attachment, PromptMention, QueuedPrompt } from "../schemas/sessions.ts";

interface Row {
  id: string;
  session_id: string;
  text: string;
  attachments: string;
  mentions: string;
  client_id: string | null;
  created_at: string;
  updated_at: string;
}

const toPrompt = (row: Row): QueuedPrompt => {
  const mentions = JSON.parse(row.mentions) as PromptMention[];
  return {
    id: row.id,
    sessionId: row.session_id,
    text: row.text,
    attachments: JSON.parse(row.attachments) as Attachment[],
    ...(mentions.length > 0 ? { mentions } : {}),
    clientId: row.client_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
};

/** Prompts waiting for their turn, first in first out. */
export class PromptQueueRepository {
  constructor(private readonly store: Store) {}

  list(sessionId: string): QueuedPrompt[] {
    return this.store.db.query<Row, [string]>("SELECT * FROM prompt_queue WHERE session_id = ? ORDER BY position").all(sessionId).map(toPrompt);
  }

  /** The sessions that hold queued prompts: one query, where asking each session cost a query per session. */
  sessionsWithPrompts(): string[] {
    return this.store.db
      .query<{ session_id: string }, []>("SELECT DISTINCT session_id FROM prompt_queue")
      .all()
      .map((row) => row.session_id);
  }

  get(id: string): QueuedPrompt | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT * FROM prompt_queue WHERE id = ?").get(id);
    return row ? toPrompt(row) : undefined;
  }

  add(prompt: QueuedPrompt): void {
    const last = this.store.db
      .query<{ position: number | null }, [string]>("SELECT MAX(position) AS position FROM prompt_queue WHERE session_id = ?")
      .get(prompt.sessionId);
    this.store.db
      .query(
        `INSERT INTO prompt_queue (id, session_id, position, text, attachments, mentions, client_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        prompt.id,
        prompt.sessionId,
        (last?.position ?? 0) + 1,
        prompt.text,
        JSON.stringify(prompt.attachments),
        JSON.stringify(prompt.mentions ?? []),
        prompt.clientId,
        prompt.createdAt,
        prompt.updatedAt,
      );
    if (prompt.clientId) {
      this.store.db
        .query("INSERT INTO prompt_receipts (session_id, client_id, prompt) VALUES (?, ?, ?)")
        .run(prompt.sessionId, prompt.clientId, JSON.stringify(prompt));
    }
  }

  update(prompt: QueuedPrompt): void {
    this.store.db
      .query("UPDATE prompt_queue SET text = ?, attachments = ?, updated_at = ? WHERE id = ?")
      .run(prompt.text, JSON.stringify(prompt.attachments), prompt.updatedAt, prompt.id);
  }

  remove(id: string): void {
    this.store.db.query("DELETE FROM prompt_queue WHERE id = ?").run(id);
  }

  /**
   * The prompt a client id was accepted with in this session, as it is now if it is still queued (it
   * may have been edited), else as it was accepted (it started, or was dropped).
   */
  findByClientId(sessionId: string, clientId: string): QueuedPrompt | undefined {
    const receipt = this.store.db
      .query<{ prompt: string }, [string, string]>("SELECT prompt FROM prompt_receipts WHERE session_id = ? AND client_id = ?")
      .get(sessionId, clientId);
    if (!receipt) return undefined;
    const accepted = JSON.parse(receipt.prompt) as QueuedPrompt;
    return this.get(accepted.id) ?? accepted;
  }
}

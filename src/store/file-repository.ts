import type { Store } from "./database.ts";

export interface StoredFile {
  id: string;
  name: string;
  mimeType: string;
  sizeBytes: number;
  /** Where the bytes are, inside the data dir's files folder. */
  path: string;
  createdAt: string;
}

interface Row {
  id: string;
  name: string;
  mime_type: string;
  size_bytes: number;
  path: string;
  created_at: string;
}

/** Uploaded files' records; the bytes live on disk beside the database. */
export class FileRepository {
  constructor(private readonly store: Store) {}

  add(file: StoredFile): void {
    this.store.db
      .query("INSERT INTO files (id, name, mime_type, size_bytes, path, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(file.id, file.name, file.mimeType, file.sizeBytes, file.path, file.createdAt);
  }

  /** The files a session's prompts and conversation have attached. */
  attachedTo(sessionId: string): string[] {
    return this.store.db
      .query<{ id: string }, [string]>(
        `SELECT json_extract(a.value, '$.fileId') AS id FROM conversation_items c, json_each(c.attachments) a WHERE c.session_id = ?1
         UNION SELECT json_extract(a.value, '$.fileId') FROM prompt_queue q, json_each(q.attachments) a WHERE q.session_id = ?1`,
      )
      .all(sessionId)
      .map((row) => row.id);
  }

  /** Of these files, those no prompt or conversation item of any session attaches. */
  unattached(ids: string[]): string[] {
    if (ids.length === 0) return [];
    const attached = new Set(
      this.store.db
        .query<{ id: string }, []>(
          `SELECT json_extract(a.value, '$.fileId') AS id FROM conversation_items c, json_each(c.attachments) a
           UNION SELECT json_extract(a.value, '$.fileId') FROM prompt_queue q, json_each(q.attachments) a`,
        )
        .all()
        .map((row) => row.id),
    );
    return ids.filter((id) => !attached.has(id));
  }

  remove(id: string): void {
    this.store.db.query("DELETE FROM files WHERE id = ?").run(id);
  }

  get(id: string): StoredFile | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT * FROM files WHERE id = ?").get(id);
    if (!row) return undefined;
    return { id: row.id, name: row.name, mimeType: row.mime_type, sizeBytes: row.size_bytes, path: row.path, createdAt: row.created_at };
  }
}

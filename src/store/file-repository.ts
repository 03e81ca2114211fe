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

  get(id: string): StoredFile | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT * FROM files WHERE id = ?").get(id);
    if (!row) return undefined;
    return { id: row.id, name: row.name, mimeType: row.mime_type, sizeBytes: row.size_bytes, path: row.path, createdAt: row.created_at };
  }
}

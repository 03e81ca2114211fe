import type { Store } from "./database.ts";

export interface StoredWorktree {
  id: string;
  projectId: string;
  sessionId: string;
  name: string;
  branch: string;
  path: string;
  /** The repository the worktree belongs to (the project location it was made from). */
  repositoryPath: string;
  baseRef: string;
  createdAt: string;
}

interface WorktreeRow {
  id: string;
  project_id: string;
  session_id: string;
  name: string;
  branch: string;
  path: string;
  repository_path: string;
  base_ref: string;
  created_at: string;
}

const toWorktree = (row: WorktreeRow): StoredWorktree => ({
  id: row.id,
  projectId: row.project_id,
  sessionId: row.session_id,
  name: row.name,
  branch: row.branch,
  path: row.path,
  repositoryPath: row.repository_path,
  baseRef: row.base_ref,
  createdAt: row.created_at,
});

const COLUMNS = "id, project_id, session_id, name, branch, path, repository_path, base_ref, created_at";

/** Git worktrees the server made for sessions. */
export class WorktreeRepository {
  constructor(private readonly store: Store) {}

  insert(worktree: StoredWorktree): void {
    this.store.db
      .query(
        `INSERT INTO worktrees (${COLUMNS})
         VALUES ($id, $projectId, $sessionId, $name, $branch, $path, $repositoryPath, $baseRef, $createdAt)`,
      )
      .run({ ...worktree });
  }

  get(id: string): StoredWorktree | undefined {
    const row = this.store.db.query<WorktreeRow, [string]>(`SELECT ${COLUMNS} FROM worktrees WHERE id = ?`).get(id);
    return row ? toWorktree(row) : undefined;
  }

  listByProject(projectId: string): StoredWorktree[] {
    return this.store.db
      .query<WorktreeRow, [string]>(`SELECT ${COLUMNS} FROM worktrees WHERE project_id = ? ORDER BY created_at, id`)
      .all(projectId)
      .map(toWorktree);
  }

  listAll(): StoredWorktree[] {
    return this.store.db.query<WorktreeRow, []>(`SELECT ${COLUMNS} FROM worktrees ORDER BY created_at, id`).all().map(toWorktree);
  }

  nameTaken(projectId: string, name: string): boolean {
    return (
      this.store.db.query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM worktrees WHERE project_id = ? AND name = ?").get(projectId, name)!.n > 0
    );
  }

  delete(id: string): void {
    this.store.db.query("DELETE FROM worktrees WHERE id = ?").run(id);
  }
}

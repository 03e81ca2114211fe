import type { Store } from "./database.ts";
import { decodeCursor, pageOf, type Page } from "./page-cursor.ts";

/**
 * A project whose shown name holds the bound text, ignoring the case of ASCII letters (SQLite's lower()
 * folds nothing else; both sides go through it, so they agree).
 */
export const PROJECT_NAME_HOLDS = "instr(lower(coalesce(custom_name, default_name)), lower(?)) > 0";

export interface StoredProject {
  id: string;
  customName: string | null;
  defaultName: string;
  createdAt: string;
  repoUrl: string | null;
  repoKey: string | null;
  customWorktreeRemote: string | null;
  customWorktreeBranch: string | null;
  detectedRemote: string | null;
  detectedBranch: string | null;
  defaultRunLocation: string | null;
  isScratch: boolean;
  updatedAt: string;
}

export interface StoredLocation {
  id: string;
  projectId: string;
  serverId: string;
  folderPath: string;
  createdAt: string;
  isGitRepository: boolean;
  /** The server made this folder (scratch or clone), so it may remove it. */
  createdByServer: boolean;
}

interface ProjectRow {
  id: string;
  custom_name: string | null;
  default_name: string;
  created_at: string;
  repo_url: string | null;
  repo_key: string | null;
  custom_worktree_remote: string | null;
  custom_worktree_branch: string | null;
  detected_remote: string | null;
  detected_branch: string | null;
  default_run_location: string | null;
  is_scratch: number;
  updated_at: string;
}

interface LocationRow {
  id: string;
  project_id: string;
  server_id: string;
  folder_path: string;
  created_at: string;
  is_git_repository: number;
  created_by_server: number;
}

const toProject = (row: ProjectRow): StoredProject => ({
  id: row.id,
  customName: row.custom_name,
  defaultName: row.default_name,
  createdAt: row.created_at,
  repoUrl: row.repo_url,
  repoKey: row.repo_key,
  customWorktreeRemote: row.custom_worktree_remote,
  customWorktreeBranch: row.custom_worktree_branch,
  detectedRemote: row.detected_remote,
  detectedBranch: row.detected_branch,
  defaultRunLocation: row.default_run_location,
  isScratch: row.is_scratch === 1,
  updatedAt: row.updated_at,
});

const toLocation = (row: LocationRow): StoredLocation => ({
  id: row.id,
  projectId: row.project_id,
  serverId: row.server_id,
  folderPath: row.folder_path,
  createdAt: row.created_at,
  isGitRepository: row.is_git_repository === 1,
  createdByServer: row.created_by_server === 1,
});

const PROJECT_COLUMNS = `id, custom_name, default_name, created_at, repo_url, repo_key, custom_worktree_remote,
  custom_worktree_branch, detected_remote, detected_branch, default_run_location, is_scratch, updated_at`;
const LOCATION_COLUMNS = "id, project_id, server_id, folder_path, created_at, is_git_repository, created_by_server";

/** Projects and their locations (folders on a machine). */
export class ProjectRepository {
  constructor(private readonly store: Store) {}

  /** Counts writes to projects and their locations (in this process), so that kept pages know they are stale. */
  revision = 0;

  insert(project: StoredProject): void {
    this.revision++;
    this.store.db
      .query(
        `INSERT INTO projects (${PROJECT_COLUMNS}) VALUES ($id, $customName, $defaultName, $createdAt, $repoUrl, $repoKey,
          $customWorktreeRemote, $customWorktreeBranch, $detectedRemote, $detectedBranch, $defaultRunLocation, $isScratch, $updatedAt)`,
      )
      .run({ ...project, isScratch: project.isScratch ? 1 : 0 });
  }

  update(project: StoredProject): void {
    this.revision++;
    this.store.db
      .query(
        `UPDATE projects SET custom_name = $customName, custom_worktree_remote = $customWorktreeRemote,
          custom_worktree_branch = $customWorktreeBranch, default_run_location = $defaultRunLocation, updated_at = $updatedAt
         WHERE id = $id`,
      )
      .run({
        id: project.id,
        customName: project.customName,
        customWorktreeRemote: project.customWorktreeRemote,
        customWorktreeBranch: project.customWorktreeBranch,
        defaultRunLocation: project.defaultRunLocation,
        updatedAt: project.updatedAt,
      });
  }

  /** Records the repository a project's folders turned out to be (a plain project gaining a checkout). */
  adoptRepository(
    id: string,
    repo: { repoUrl: string; repoKey: string; detectedRemote: string | null; detectedBranch: string | null },
    updatedAt: string,
  ): void {
    this.revision++;
    this.store.db
      .query(
        `UPDATE projects SET repo_url = $repoUrl, repo_key = $repoKey, detected_remote = $detectedRemote,
          detected_branch = $detectedBranch, updated_at = $updatedAt WHERE id = $id`,
      )
      .run({ id, ...repo, updatedAt });
  }

  get(id: string): StoredProject | undefined {
    const row = this.store.db.query<ProjectRow, [string]>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`).get(id);
    return row ? toProject(row) : undefined;
  }

  /** A page of projects, oldest first, those whose name holds `q` when given; `cursor` continues after the page that gave it out. */
  list(limit: number, cursor?: string, q?: string): Page<StoredProject> {
    const [createdAt, id] = cursor === undefined ? ["", ""] : (decodeCursor(cursor, 2) as [string, string]);
    const named = q === undefined ? "" : `AND ${PROJECT_NAME_HOLDS}`;
    const values: Array<string | number> = [createdAt, id, ...(q === undefined ? [] : [q]), limit + 1];
    const rows = this.store.db
      .query<ProjectRow, Array<string | number>>(
        `SELECT ${PROJECT_COLUMNS} FROM projects WHERE (created_at, id) > (?, ?) ${named} ORDER BY created_at, id LIMIT ?`,
      )
      .all(...values);
    return pageOf(rows, limit, (row) => [row.created_at, row.id], toProject);
  }

  /** The locations of the projects named, by project. */
  locationsOfProjects(projectIds: string[]): StoredLocation[] {
    if (projectIds.length === 0) return [];
    return this.store.db
      .query<LocationRow, string[]>(
        `SELECT ${LOCATION_COLUMNS} FROM project_locations WHERE project_id IN (${projectIds.map(() => "?").join(", ")}) ORDER BY created_at, id`,
      )
      .all(...projectIds)
      .map(toLocation);
  }

  findByRepoKey(repoKey: string): StoredProject | undefined {
    const row = this.store.db.query<ProjectRow, [string]>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE repo_key = ?`).get(repoKey);
    return row ? toProject(row) : undefined;
  }

  delete(id: string): void {
    this.revision++;
    this.store.db.query("DELETE FROM projects WHERE id = ?").run(id);
  }

  insertLocation(location: StoredLocation): void {
    this.revision++;
    this.store.db
      .query(
        `INSERT INTO project_locations (${LOCATION_COLUMNS})
         VALUES ($id, $projectId, $serverId, $folderPath, $createdAt, $isGitRepository, $createdByServer)`,
      )
      .run({ ...location, isGitRepository: location.isGitRepository ? 1 : 0, createdByServer: location.createdByServer ? 1 : 0 });
  }

  deleteLocation(id: string): void {
    this.revision++;
    this.store.db.query("DELETE FROM project_locations WHERE id = ?").run(id);
  }

  locationsOf(projectId: string): StoredLocation[] {
    return this.store.db
      .query<LocationRow, [string]>(`SELECT ${LOCATION_COLUMNS} FROM project_locations WHERE project_id = ? ORDER BY created_at, id`)
      .all(projectId)
      .map(toLocation);
  }

  /** Every location, for listing all projects in two queries rather than one per project. */
  findLocationByFolder(serverId: string, folderPath: string): StoredLocation | undefined {
    const row = this.store.db
      .query<LocationRow, [string, string]>(`SELECT ${LOCATION_COLUMNS} FROM project_locations WHERE server_id = ? AND folder_path = ?`)
      .get(serverId, folderPath);
    return row ? toLocation(row) : undefined;
  }
}

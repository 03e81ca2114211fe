import { NotFoundError } from "../errors.ts";
import type { WorkingTreeChanges } from "../git/working-tree-changes.ts";
import type { ChangeList, FileDiff } from "../schemas/changes.ts";
import { DEFAULT_CHANGES_PAGE, type ChangesPage } from "../git/changes-page.ts";
import type { ProjectService } from "./project-service.ts";
import type { WorktreeService } from "./worktree-service.ts";

export interface ProjectChangesDeps {
  projects: ProjectService;
  worktrees: WorktreeService;
  changes: WorkingTreeChanges;
}

/** The working-tree changes of a project's locations and of the worktrees made for its sessions. */
export class ProjectChanges {
  constructor(private readonly deps: ProjectChangesDeps) {}

  ofLocation(projectId: string, locationId: string, page: ChangesPage): Promise<ChangeList> {
    return this.deps.changes.list(this.locationFolder(projectId, locationId), page.limit ?? DEFAULT_CHANGES_PAGE, page.cursor);
  }

  diffOfLocation(projectId: string, locationId: string, path: string): Promise<FileDiff> {
    return this.deps.changes.diff(this.locationFolder(projectId, locationId), path);
  }

  ofWorktree(projectId: string, worktreeId: string, page: ChangesPage): Promise<ChangeList> {
    return this.deps.changes.list(this.worktreeFolder(projectId, worktreeId), page.limit ?? DEFAULT_CHANGES_PAGE, page.cursor);
  }

  diffOfWorktree(projectId: string, worktreeId: string, path: string): Promise<FileDiff> {
    return this.deps.changes.diff(this.worktreeFolder(projectId, worktreeId), path);
  }

  locationFolder(projectId: string, locationId: string): string {
    const location = this.deps.projects.get(projectId).locations.find((candidate) => candidate.id === locationId);
    if (!location) throw new NotFoundError(`project ${projectId} has no location ${locationId}`);
    return location.folderPath;
  }

  worktreeFolder(projectId: string, worktreeId: string): string {
    const worktree = this.deps.worktrees.list(projectId).find((candidate) => candidate.id === worktreeId);
    if (!worktree) throw new NotFoundError(`project ${projectId} has no worktree ${worktreeId}`);
    return worktree.path;
  }
}

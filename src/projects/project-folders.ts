import { statSync } from "node:fs";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { ProjectService } from "./project-service.ts";
import type { WorktreeService } from "./worktree-service.ts";
import type { SessionRepository } from "../store/session-repository.ts";

/** A folder of a project, and the session whose working folder it is when one was named. */
export interface ProjectFolder {
  cwd: string;
  sessionId: string | null;
}

/** Which folder of a project: its first location unless one location, worktree or session is named. */
export interface ProjectFolderChoice {
  projectId: string;
  locationId?: string;
  worktreeId?: string;
  sessionId?: string;
}

export interface ProjectFolderDeps {
  projects: ProjectService;
  worktrees: WorktreeService;
  sessions: SessionRepository;
}

/**
 * A folder of a project that a terminal starts in or whose files are served: a location of the project
 * (its first unless one is named), one of its worktrees, or the folder a session of it runs in (its
 * worktree, or the project folder).
 */
export class ProjectFolders {
  constructor(private readonly deps: ProjectFolderDeps) {}

  resolve(body: ProjectFolderChoice): ProjectFolder {
    const named = [body.locationId && "locationId", body.worktreeId && "worktreeId", body.sessionId && "sessionId"].filter(Boolean);
    if (named.length > 1) throw new InvalidInputError(`give one of locationId, worktreeId and sessionId, not ${named.join(" and ")}`);
    const project = this.deps.projects.get(body.projectId);
    const folder = this.folder(project.id, body, project.locations);
    let isFolder = false;
    try {
      isFolder = statSync(folder.cwd).isDirectory();
    } catch {
      // gone: said below
    }
    if (!isFolder) throw new ConflictError(`the folder ${folder.cwd} no longer exists on this machine`);
    return folder;
  }

  private folder(projectId: string, body: ProjectFolderChoice, locations: Array<{ id: string; folderPath: string }>): ProjectFolder {
    if (body.sessionId) {
      const session = this.deps.sessions.get(body.sessionId);
      if (!session) throw new NotFoundError(`no session has id ${body.sessionId}`);
      if (session.projectId !== projectId)
        throw new InvalidInputError(`sessionId: session ${session.id} belongs to project ${session.projectId}, not ${projectId}`);
      return { cwd: session.cwd, sessionId: session.id };
    }
    if (body.worktreeId) {
      const worktree = this.deps.worktrees.list(projectId).find((candidate) => candidate.id === body.worktreeId);
      if (!worktree) throw new NotFoundError(`project ${projectId} has no worktree ${body.worktreeId}`);
      return { cwd: worktree.path, sessionId: null };
    }
    const location = body.locationId ? locations.find((candidate) => candidate.id === body.locationId) : locations[0];
    if (!location) {
      throw body.locationId
        ? new NotFoundError(`project ${projectId} has no location ${body.locationId}`)
        : new ConflictError(`project ${projectId} has no folder on this machine`);
    }
    return { cwd: location.folderPath, sessionId: null };
  }
}

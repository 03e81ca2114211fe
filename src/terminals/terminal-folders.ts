import { statSync } from "node:fs";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { WorktreeService } from "../projects/worktree-service.ts";
import type { CreateTerminalBody } from "../schemas/terminals.ts";
import type { SessionRepository } from "../store/session-repository.ts";

/** Where a terminal runs, and the session it was opened for. */
export interface TerminalFolder {
  cwd: string;
  sessionId: string | null;
}

export interface TerminalFolderDeps {
  projects: ProjectService;
  worktrees: WorktreeService;
  sessions: SessionRepository;
}

/**
 * The folder a new terminal starts in: a location of the project (its first unless one is named), one
 * of its worktrees, or the folder a session of it runs in (its worktree, or the project folder).
 */
export class TerminalFolders {
  constructor(private readonly deps: TerminalFolderDeps) {}

  resolve(body: Pick<CreateTerminalBody, "projectId" | "locationId" | "worktreeId" | "sessionId">): TerminalFolder {
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

  private folder(projectId: string, body: Parameters<TerminalFolders["resolve"]>[0], locations: Array<{ id: string; folderPath: string }>): TerminalFolder {
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

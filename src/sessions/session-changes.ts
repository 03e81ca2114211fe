import { NotFoundError } from "../errors.ts";
import type { WorkingTreeChanges } from "../git/working-tree-changes.ts";
import { DEFAULT_CHANGES_PAGE, type ChangesPage } from "../git/changes-page.ts";
import type { ChangeList, FileDiff } from "../schemas/changes.ts";
import type { SessionRepository } from "../store/session-repository.ts";

/** What a session's agent changed in its folder (its worktree, or the project's folder), against HEAD. */
export class SessionChanges {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly changes: WorkingTreeChanges,
  ) {}

  of(sessionId: string, page: ChangesPage): Promise<ChangeList> {
    return this.changes.list(this.folder(sessionId), page.limit ?? DEFAULT_CHANGES_PAGE, page.cursor);
  }

  diff(sessionId: string, path: string): Promise<FileDiff> {
    return this.changes.diff(this.folder(sessionId), path);
  }

  folder(sessionId: string): string {
    const session = this.sessions.get(sessionId);
    if (!session) throw new NotFoundError(`no session has id ${sessionId}`);
    return session.cwd;
  }
}

import { ConflictError, NotFoundError } from "../errors.ts";
import { gitOutput } from "../git/git-runner.ts";
import type { WorkingTreeEdits } from "../git/working-tree-edits.ts";
import type { WorktreeService } from "../projects/worktree-service.ts";
import type { MergeBody, MergeResult } from "../schemas/git.ts";
import type { Worktree } from "../schemas/projects.ts";
import type { SessionRepository } from "../store/session-repository.ts";

export interface SessionWorktreeMergeDeps {
  sessions: SessionRepository;
  worktrees: WorktreeService;
  edits: WorkingTreeEdits;
}

/** Lands a session's worktree branch on its base branch (or another), and removes the worktree when asked. */
export class SessionWorktreeMerge {
  constructor(private readonly deps: SessionWorktreeMergeDeps) {}

  async merge(sessionId: string, body: MergeBody): Promise<MergeResult> {
    const session = this.deps.sessions.get(sessionId);
    if (!session) throw new NotFoundError(`no session has id ${sessionId}`);
    const worktree = this.deps.worktrees.ofSession(session.projectId, sessionId);
    if (!worktree) throw new ConflictError(`session ${sessionId} runs in its project's folder, not a worktree of its own: there is no branch of its to merge`);
    const repository = worktree.repositoryPath;
    if (body.removeWorktree && ((await gitOutput(["status", "--porcelain"], { cwd: worktree.path })) ?? "") !== "") {
      throw new ConflictError(`the worktree ${worktree.path} has uncommitted changes: commit or discard them before it is removed`);
    }
    const into = body.into ?? (await this.baseBranch(repository, worktree));
    const head = await this.deps.edits.land(repository, { branch: worktree.branch, into, strategy: body.strategy, message: body.message });
    if (body.removeWorktree) await this.deps.worktrees.remove(worktree.id, { keepBranch: false });
    return { into, branch: worktree.branch, strategy: body.strategy, head, worktreeRemoved: body.removeWorktree === true };
  }

  /** The branch the worktree was made from: `origin/main` names `main`. */
  private async baseBranch(repository: string, worktree: Worktree): Promise<string> {
    const remote = await gitOutput(["rev-parse", "--verify", "-q", `refs/remotes/${worktree.baseRef}`], { cwd: repository });
    return remote ? worktree.baseRef.slice(worktree.baseRef.indexOf("/") + 1) : worktree.baseRef;
  }
}

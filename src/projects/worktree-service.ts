import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store/database.ts";
import type { ProjectRepository } from "../store/project-repository.ts";
import type { StoredWorktree, WorktreeRepository } from "../store/worktree-repository.ts";
import type { Logger } from "../logging/logger.ts";
import type { Worktree } from "../schemas/projects.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { gitOutput, runGit } from "../git/git-runner.ts";
import { firstFree, slugify } from "./safe-names.ts";
import { redactCredentials } from "./repo-url.ts";
import { effectiveWorktreeBase } from "./worktree-base.ts";

export interface WorktreeServiceDeps {
  store: Store;
  worktrees: WorktreeRepository;
  projects: ProjectRepository;
  serverId: string;
  /** The data dir's `worktrees/` folder. */
  worktreesDir: string;
  logger: Logger;
  now?: () => Date;
  /** Limit for the fetch that refreshes the base before branching; offline just uses what is there. */
  fetchTimeoutMs?: number;
}

export interface CreateWorktreeInput {
  projectId: string;
  sessionId: string;
  /** Turned into a safe folder and branch name; the session id when absent. */
  name?: string;
  /** A commit to branch from instead of the project's worktreeBase (a fork's: the commit its source works on). */
  startPoint?: string;
}

const BRANCH_PREFIX = "atrium/";

const toWorktree = (stored: StoredWorktree): Worktree => ({
  id: stored.id,
  projectId: stored.projectId,
  sessionId: stored.sessionId,
  name: stored.name,
  branch: stored.branch,
  path: stored.path,
  baseRef: stored.baseRef,
  createdAt: stored.createdAt,
});

/**
 * Git worktrees for sessions that run apart from the project folder: each on a new branch
 * `atrium/<name>` from the project's worktreeBase, in `worktrees/<project>/<name>` in the data dir.
 */
export class WorktreeService {
  constructor(private readonly deps: WorktreeServiceDeps) {}

  list(projectId: string): Worktree[] {
    if (!this.deps.projects.get(projectId)) throw new NotFoundError(`no project has id ${projectId}`);
    return this.deps.worktrees.listByProject(projectId).map(toWorktree);
  }

  /** The session's worktree, if it runs in one. */
  ofSession(projectId: string, sessionId: string): (Worktree & { repositoryPath: string }) | undefined {
    const stored = this.deps.worktrees.listByProject(projectId).find((candidate) => candidate.sessionId === sessionId);
    return stored && { ...toWorktree(stored), repositoryPath: stored.repositoryPath };
  }

  async create(input: CreateWorktreeInput): Promise<Worktree> {
    const base = this.base(input.projectId);
    const { repository, remote, branch } = base;
    const baseRef = input.startPoint ?? base.baseRef;
    // What git detected needs no check; what a client chose does.
    if (!input.startPoint && base.chosen) await this.checkBase(repository, remote, branch);
    if (remote && !input.startPoint) {
      const fetched = await runGit(["fetch", "--quiet", "--end-of-options", remote, branch], {
        cwd: repository,
        timeoutMs: this.deps.fetchTimeoutMs ?? 30_000,
      });
      if (fetched.code !== 0)
        this.deps.logger.info("could not refresh the worktree base; using the local copy", { baseRef, detail: redactCredentials(fetched.stderr.trim()) });
    }
    if ((await gitOutput(["rev-parse", "--verify", "--quiet", "--end-of-options", `${baseRef}^{commit}`], { cwd: repository })) === undefined) {
      throw new InvalidInputError(`the worktree base ${baseRef} does not exist in ${repository}`);
    }
    const projectDir = join(this.deps.worktreesDir, input.projectId);
    mkdirSync(projectDir, { recursive: true, mode: 0o700 });
    const existingBranches = new Set(
      ((await gitOutput(["for-each-ref", "--format=%(refname:short)", `refs/heads/${BRANCH_PREFIX}`], { cwd: repository })) ?? "").split("\n"),
    );
    const name = firstFree(
      slugify(input.name ?? input.sessionId, "session"),
      (candidate) =>
        this.deps.worktrees.nameTaken(input.projectId, candidate) || existingBranches.has(BRANCH_PREFIX + candidate) || existsSync(join(projectDir, candidate)),
    );
    const path = join(projectDir, name);
    const added = await runGit(["worktree", "add", "--no-track", "-b", BRANCH_PREFIX + name, path, "--end-of-options", baseRef], {
      cwd: repository,
    });
    if (added.code !== 0) throw new Error(`git worktree add failed: ${added.stderr.trim()}`);
    const stored: StoredWorktree = {
      id: newId("wt"),
      projectId: input.projectId,
      sessionId: input.sessionId,
      name,
      branch: BRANCH_PREFIX + name,
      path,
      repositoryPath: repository,
      baseRef,
      createdAt: (this.deps.now?.() ?? new Date()).toISOString(),
    };
    this.deps.worktrees.insert(stored);
    return toWorktree(stored);
  }

  /** Removes the worktree, and its branch unless the branch was pushed or `keepBranch` is set. */
  async remove(id: string, options: { keepBranch?: boolean } = {}): Promise<void> {
    const worktree = this.deps.worktrees.get(id);
    if (!worktree) throw new NotFoundError(`no worktree has id ${id}`);
    const repository = worktree.repositoryPath;
    if (existsSync(repository)) {
      const removed = await runGit(["worktree", "remove", "--force", worktree.path], { cwd: repository });
      if (removed.code !== 0) await runGit(["worktree", "prune"], { cwd: repository });
      if (!options.keepBranch && !(await this.wasPushed(repository, worktree.branch))) {
        await runGit(["branch", "-D", worktree.branch], { cwd: repository });
      }
    }
    rmSync(worktree.path, { recursive: true, force: true });
    this.deps.worktrees.delete(id);
  }

  async removeAllOf(projectId: string): Promise<void> {
    for (const worktree of this.deps.worktrees.listByProject(projectId)) await this.remove(worktree.id);
  }

  /** Removes the worktrees whose session is gone; run at start-up. Returns how many went. */
  async pruneOrphans(sessionExists: (sessionId: string) => boolean): Promise<number> {
    let pruned = 0;
    for (const worktree of this.deps.worktrees.listAll()) {
      if (sessionExists(worktree.sessionId)) continue;
      try {
        await this.remove(worktree.id);
        pruned++;
      } catch (error) {
        this.deps.logger.warn("could not prune a worktree", { worktreeId: worktree.id, error });
      }
    }
    return pruned;
  }

  /**
   * The base comes from a client (PATCH worktreeBase): the remote must be one the repository has, and
   * the branch a valid branch name, before either reaches a git command line.
   */
  private async checkBase(repository: string, remote: string, branch: string): Promise<void> {
    if (remote) {
      const remotes = ((await gitOutput(["remote"], { cwd: repository })) ?? "").split("\n");
      if (!remotes.includes(remote)) throw new InvalidInputError(`the worktree base remote "${remote}" is not a remote of ${repository}`);
    }
    if ((await runGit(["check-ref-format", "--branch", branch], { cwd: repository })).code !== 0) {
      throw new InvalidInputError(`the worktree base branch "${branch}" is not a valid branch name`);
    }
  }

  /** A branch counts as pushed when any remote has a branch of that name. */
  private async wasPushed(repository: string, branch: string): Promise<boolean> {
    const remoteRefs = (await gitOutput(["for-each-ref", "--format=%(refname)", "refs/remotes"], { cwd: repository })) ?? "";
    return remoteRefs.split("\n").some((ref) => ref.endsWith(`/${branch}`));
  }

  private base(projectId: string): { repository: string; baseRef: string; remote: string; branch: string; chosen: boolean } {
    const project = this.deps.projects.get(projectId);
    if (!project) throw new NotFoundError(`no project has id ${projectId}`);
    const location = this.deps.projects.locationsOf(projectId).find((candidate) => candidate.serverId === this.deps.serverId && candidate.isGitRepository);
    if (!location) throw new InvalidInputError(`project ${projectId} has no git repository on this machine`);
    const { remote, branch } = effectiveWorktreeBase(project);
    const chosen = project.customWorktreeRemote !== null || project.customWorktreeBranch !== null;
    return { repository: location.folderPath, baseRef: remote ? `${remote}/${branch}` : branch, remote, branch, chosen };
  }
}

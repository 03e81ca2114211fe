import type { ChangeList } from "../schemas/changes.ts";
import type { Clock } from "../clock.ts";
import type { Branch, Commit, CommitBody, Discard, GitChanged, GitSelection, NewBranch, PullBody, PushBody, RemoteResult } from "../schemas/git.ts";
import type { GitChangedNotices } from "./git-changed.ts";
import { pull, push } from "./remotes.ts";
import { checkout, createBranch } from "./branches.ts";
import { landBranch, type Landing } from "./branch-landing.ts";
import { commit } from "./commits.ts";
import { DEFAULT_CHANGES_PAGE } from "./changes-page.ts";
import type { Discards } from "./discards.ts";
import { stage, unstage } from "./index-edits.ts";
import type { Repository, RepositoryStatus, WorkingTreeChanges } from "./working-tree-changes.ts";

type GitOperationName = GitChanged["operation"];

/**
 * Changes to a folder's repository from a client: stage, unstage, discard and undo a discard, commit,
 * make and check out branches, push and pull, land a branch. One at a time per repository (git's index takes one
 * writer); each is followed by a `git.changed` event saying what the repository looks like after it.
 */
export class WorkingTreeEdits {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly changes: WorkingTreeChanges,
    private readonly discards: Discards,
    private readonly clock: Clock,
    private readonly notices: GitChangedNotices,
  ) {}

  stage(folder: string, selection: GitSelection): Promise<ChangeList> {
    return this.queuedWithChanges(folder, "stage", async (status) => {
      await stage(status, selection);
      return this.firstPage(folder);
    });
  }

  unstage(folder: string, selection: GitSelection): Promise<ChangeList> {
    return this.queuedWithChanges(folder, "unstage", async (status) => {
      await unstage(status, selection);
      return this.firstPage(folder);
    });
  }

  discard(folder: string, selection: GitSelection): Promise<Discard> {
    return this.queuedWithChanges(folder, "discard", (status) => this.discards.discard(status, selection));
  }

  undoDiscard(folder: string, id: string): Promise<ChangeList> {
    return this.queuedWithChanges(folder, "discard.undo", async (status) => {
      await this.discards.undo(status, id);
      return this.firstPage(folder);
    });
  }

  commit(folder: string, body: CommitBody): Promise<Commit> {
    return this.queued(folder, "commit", (repo) => commit(repo, body, this.clock));
  }

  createBranch(folder: string, body: NewBranch): Promise<Branch> {
    return this.queued(folder, "branch", (repo) => createBranch(repo, body));
  }

  checkout(folder: string, branch: string): Promise<ChangeList> {
    return this.queued(folder, "checkout", async (repo) => {
      await checkout(repo, branch);
      return this.firstPage(folder);
    });
  }

  push(folder: string, body: PushBody): Promise<RemoteResult> {
    return this.queued(folder, "push", (repo) => push(repo, body));
  }

  pull(folder: string, body: PullBody): Promise<RemoteResult> {
    return this.queued(folder, "pull", (repo) => pull(repo, body));
  }

  /** Lands a branch on another in the repository of `folder` (branch-landing.ts), in its turn. */
  land(folder: string, landing: Omit<Landing, "repository">): Promise<string> {
    return this.queued(folder, "merge", (repo) => landBranch({ ...landing, repository: repo.root }, this.clock));
  }

  /** `queued`, with the repository's changes read once it is this change's turn. */
  private queuedWithChanges<T>(folder: string, operation: GitOperationName, change: (status: RepositoryStatus) => Promise<T>): Promise<T> {
    return this.queued(folder, operation, async () => change(await this.changes.status(folder)));
  }

  /** Runs `change` on the folder's repository once any other change to it has finished, then says what the repository looks like. */
  private async queued<T>(folder: string, operation: GitOperationName, change: (repo: Repository) => Promise<T>): Promise<T> {
    const { root } = await this.changes.repository(folder);
    const previous = this.queues.get(root) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const done = await change(await this.changes.repository(folder));
        await this.notices.announce(folder, operation);
        return done;
      });
    this.queues.set(root, run);
    try {
      return await run;
    } finally {
      if (this.queues.get(root) === run) this.queues.delete(root);
    }
  }

  private firstPage(folder: string): Promise<ChangeList> {
    return this.changes.list(folder, DEFAULT_CHANGES_PAGE);
  }
}

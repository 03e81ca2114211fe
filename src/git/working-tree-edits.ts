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
import type { Repository } from "./repository-info.ts";
import type { RepositoryStatus, WorkingTreeChanges } from "./working-tree-changes.ts";

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
    return this.queuedWithChanges(folder, "stage", (status) => stage(status, selection), this.firstPage(folder));
  }

  unstage(folder: string, selection: GitSelection): Promise<ChangeList> {
    return this.queuedWithChanges(folder, "unstage", (status) => unstage(status, selection), this.firstPage(folder));
  }

  discard(folder: string, selection: GitSelection): Promise<Discard> {
    return this.queuedWithChanges(folder, "discard", (status) => this.discards.discard(status, selection), itself);
  }

  undoDiscard(folder: string, id: string): Promise<ChangeList> {
    return this.queuedWithChanges(folder, "discard.undo", (status) => this.discards.undo(status, id), this.firstPage(folder));
  }

  commit(folder: string, body: CommitBody): Promise<Commit> {
    return this.queued(folder, "commit", (repo) => commit(repo, body, this.clock), itself);
  }

  createBranch(folder: string, body: NewBranch): Promise<Branch> {
    return this.queued(folder, "branch", (repo) => createBranch(repo, body), itself);
  }

  checkout(folder: string, branch: string): Promise<ChangeList> {
    return this.queued(folder, "checkout", (repo) => checkout(repo, branch), this.firstPage(folder));
  }

  push(folder: string, body: PushBody): Promise<RemoteResult> {
    return this.queued(folder, "push", (repo) => push(repo, body, this.notices.progressOf(repo.root, "push")), itself);
  }

  pull(folder: string, body: PullBody): Promise<RemoteResult> {
    return this.queued(folder, "pull", (repo) => pull(repo, body, this.notices.progressOf(repo.root, "pull")), itself);
  }

  /** Lands a branch on another in the repository of `folder` (branch-landing.ts), in its turn. */
  land(folder: string, landing: Omit<Landing, "repository">): Promise<string> {
    return this.queued(folder, "merge", (repo) => landBranch({ ...landing, repository: repo.root }, this.clock), itself);
  }

  /**
   * `queued`, with the repository's changes read once it is this change's turn; these changes (to the
   * index and the working tree) leave HEAD and the branch where they were.
   */
  private queuedWithChanges<T, A>(
    folder: string,
    operation: GitOperationName,
    change: (status: RepositoryStatus) => Promise<T>,
    answer: Answer<T, A>,
  ): Promise<A> {
    return this.queued(folder, operation, async (repo) => change(await this.changes.statusOf(repo)), answer, "stays");
  }

  /**
   * Runs `change` on the folder's repository once any other change to it has finished, then reads what
   * the repository looks like (once), answers what `answer` makes of the change's result and that state,
   * and says that state in a `git.changed` event, all in the change's turn.
   */
  private async queued<T, A>(
    folder: string,
    operation: GitOperationName,
    change: (repo: Repository) => Promise<T>,
    answer: Answer<T, A>,
    head: "may move" | "stays" = "may move",
  ): Promise<A> {
    const asked = await this.changes.repository(folder);
    const previous = this.queues.get(asked.root);
    const run = (previous ?? Promise.resolve())
      .catch(() => undefined)
      // With nothing before it in the queue, the repository is as it was just read.
      .then(async () => {
        const before = previous ? await this.changes.repository(folder) : asked;
        const done = await change(before);
        const after = await this.changes.statusOf(head === "stays" ? before : await this.changes.repository(folder));
        const answered = await answer(done, after);
        this.notices.announce(after, operation);
        return answered;
      });
    this.queues.set(asked.root, run);
    try {
      return await run;
    } finally {
      if (this.queues.get(asked.root) === run) this.queues.delete(asked.root);
    }
  }

  /** The first page of the changes after an operation, from the state read after it. */
  private firstPage(folder: string): Answer<unknown, ChangeList> {
    return (_done, after) => this.changes.page(folder, after, DEFAULT_CHANGES_PAGE);
  }
}

/** What an operation answers, made from its result and the repository's state after it. */
type Answer<T, A> = (done: T, after: RepositoryStatus) => A | Promise<A>;

/** The operation's own result is the answer. */
const itself = <T>(done: T): T => done;

import type { ChangeList } from "../schemas/changes.ts";
import type { Clock } from "../clock.ts";
import type { Commit, CommitBody, Discard, GitSelection } from "../schemas/git.ts";
import { commit } from "./commits.ts";
import { DEFAULT_CHANGES_PAGE } from "./changes-page.ts";
import type { Discards } from "./discards.ts";
import { stage, unstage } from "./index-edits.ts";
import type { RepositoryStatus, WorkingTreeChanges } from "./working-tree-changes.ts";

/**
 * Changes to a folder's repository from a client: stage, unstage, discard and undo a discard, commit. One at a
 * time per repository (git's index takes one writer); each answers with the changes as they are after it.
 */
export class WorkingTreeEdits {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly changes: WorkingTreeChanges,
    private readonly discards: Discards,
    private readonly clock: Clock,
  ) {}

  stage(folder: string, selection: GitSelection): Promise<ChangeList> {
    return this.queued(folder, async (status) => {
      await stage(status, selection);
      return this.firstPage(folder);
    });
  }

  unstage(folder: string, selection: GitSelection): Promise<ChangeList> {
    return this.queued(folder, async (status) => {
      await unstage(status, selection);
      return this.firstPage(folder);
    });
  }

  discard(folder: string, selection: GitSelection): Promise<Discard> {
    return this.queued(folder, (status) => this.discards.discard(status, selection));
  }

  undoDiscard(folder: string, id: string): Promise<ChangeList> {
    return this.queued(folder, async (status) => {
      await this.discards.undo(status, id);
      return this.firstPage(folder);
    });
  }

  commit(folder: string, body: CommitBody): Promise<Commit> {
    return this.queued(folder, (status) => commit(status, body, this.clock));
  }

  /** Runs `change` on the folder's repository once any other change to it has finished. */
  private async queued<T>(folder: string, change: (status: RepositoryStatus) => Promise<T>): Promise<T> {
    const root = (await this.changes.status(folder)).root;
    const previous = this.queues.get(root) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(async () => change(await this.changes.status(folder)));
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

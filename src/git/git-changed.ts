import type { EventLog } from "../events/event-log.ts";
import type { GitChanged, GitEvents } from "../schemas/git.ts";
import type { Store } from "../store/database.ts";
import type { RepositoryStatus } from "./working-tree-changes.ts";

/** Says, as a `git.changed` event, what a repository looks like after a git operation a client asked for. */
export class GitChangedNotices {
  constructor(
    private readonly store: Store,
    private readonly events: EventLog<typeof GitEvents>,
  ) {}

  announce(status: RepositoryStatus, operation: GitChanged["operation"]): void {
    const payload: GitChanged = { repositoryRoot: status.root, operation, branch: status.branch, head: status.head, changeCount: status.changes.length };
    this.store.transaction(() => this.events.append("git.changed", status.root, payload));
  }
}

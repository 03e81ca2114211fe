import type { Clock } from "../clock.ts";
import type { EventLog } from "../events/event-log.ts";
import type { GitChanged, GitEvents, GitProgress } from "../schemas/git.ts";
import type { Store } from "../store/database.ts";
import { throttledProgress } from "./remote-progress.ts";
import type { RepositoryStatus } from "./working-tree-changes.ts";

/**
 * Says, as events, what a git operation a client asked for did: `git.changed` with what the repository looks
 * like after it, and `git.progress` while a push or pull runs.
 */
export class GitChangedNotices {
  constructor(
    private readonly store: Store,
    private readonly events: EventLog<typeof GitEvents>,
    private readonly clock: Pick<Clock, "now">,
  ) {}

  announce(status: RepositoryStatus, operation: GitChanged["operation"]): void {
    const payload: GitChanged = { repositoryRoot: status.root, operation, branch: status.branch, head: status.head, changeCount: status.changes.length };
    this.store.transaction(() => this.events.append("git.changed", status.root, payload));
  }

  /** The handler of git's stderr lines for one push or pull in the repository at `root`: its progress, throttled, as events. */
  progressOf(repositoryRoot: string, operation: GitProgress["operation"]): (line: string) => void {
    return throttledProgress(
      () => this.clock.now(),
      (progress) => this.store.transaction(() => this.events.append("git.progress", repositoryRoot, { repositoryRoot, operation, ...progress })),
    );
  }
}

import type { BranchList, CommitLog, CommitMessage, CommitMessageBody } from "../schemas/git.ts";
import { listBranches } from "./branches.ts";
import type { ChangesPage } from "./changes-page.ts";
import { commitLog, DEFAULT_LOG_PAGE } from "./commit-log.ts";
import type { MessageAuthor } from "./agent-commit-message.ts";
import { writeCommitMessage } from "./commit-message.ts";
import type { WorkingTreeChanges } from "./working-tree-changes.ts";

/** What a client reads of a folder's repository besides its changes: its branches, its history, a message for what is staged. */
export class GitReads {
  constructor(private readonly changes: WorkingTreeChanges) {}

  async branches(folder: string): Promise<BranchList> {
    return listBranches(await this.changes.repository(folder));
  }

  async log(folder: string, page: ChangesPage): Promise<CommitLog> {
    return commitLog(await this.changes.repository(folder), page.limit ?? DEFAULT_LOG_PAGE, page.cursor);
  }

  /** See writeCommitMessage: `author` is the session's agent, null where the folder has none. */
  async commitMessage(folder: string, author: MessageAuthor | null, source: CommitMessageBody["source"]): Promise<CommitMessage> {
    return writeCommitMessage(await this.changes.repository(folder), author, source);
  }
}

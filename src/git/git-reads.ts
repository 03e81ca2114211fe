import type { BranchList, CommitLog } from "../schemas/git.ts";
import { listBranches } from "./branches.ts";
import type { ChangesPage } from "./changes-page.ts";
import { commitLog, DEFAULT_LOG_PAGE } from "./commit-log.ts";
import type { WorkingTreeChanges } from "./working-tree-changes.ts";

/** What a client reads of a folder's repository besides its changes: its branches and its history. */
export class GitReads {
  constructor(private readonly changes: WorkingTreeChanges) {}

  async branches(folder: string): Promise<BranchList> {
    return listBranches(await this.changes.repository(folder));
  }

  async log(folder: string, page: ChangesPage): Promise<CommitLog> {
    return commitLog(await this.changes.repository(folder), page.limit ?? DEFAULT_LOG_PAGE, page.cursor);
  }
}

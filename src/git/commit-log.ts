import { InvalidInputError } from "../errors.ts";
import { decodeCursor, encodeCursor, NOT_OUR_CURSOR } from "../store/page-cursor.ts";
import type { CommitLog, LogEntry } from "../schemas/git.ts";
import { gitStep } from "./git-step.ts";
import type { Repository } from "./repository-info.ts";

export const DEFAULT_LOG_PAGE = 50;

/**
 * HEAD's history, newest first, a page at a time. The cursor keeps the commit the first page started at
 * and how many were listed, so a commit made meanwhile neither shifts nor repeats a page.
 */
export async function commitLog(repo: Repository, limit: number, cursor?: string): Promise<CommitLog> {
  const [start, skipped] = cursor === undefined ? [repo.head, "0"] : decodeCursor(cursor, 2);
  // A cursor is handed back by the client: only a commit id and a count reach git from it.
  if (cursor !== undefined && !(/^[0-9a-f]{40,64}$/.test(start ?? "") && /^\d{1,9}$/.test(skipped ?? ""))) throw new InvalidInputError(NOT_OUR_CURSOR);
  if (!start) return { head: null, commits: [], next: null };
  const format = "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%s";
  const listed = await gitStep(["log", "-z", format, `--skip=${Number(skipped)}`, `--max-count=${limit + 1}`, start, "--"], { cwd: repo.root });
  const rows = listed.stdout.split("\0").filter(Boolean);
  const commits = rows.slice(0, limit).map((row): LogEntry => {
    const [sha = "", parents = "", authorName = "", authorEmail = "", at = "0", subject = ""] = row.split("\x1f");
    return { sha, parents: parents.split(" ").filter(Boolean), authorName, authorEmail, authoredAt: new Date(Number(at) * 1000).toISOString(), subject };
  });
  const next = rows.length > limit ? encodeCursor([start, String(Number(skipped) + limit)]) : null;
  return { head: start, commits, next };
}

import type { ChangedFile } from "../schemas/changes.ts";
import { runGit } from "./git-runner.ts";
import { LITERAL_PATHS } from "./git-step.ts";
import { hunkKey, patchOfHunks } from "./hunk-patch.ts";

/** A file's hunks looked at for being staged, at most: each is one `git apply --check`. */
const MAX_HUNKS_LOOKED_AT = 100;

/** `git status` as a script reads it, for the whole repository; no index refresh, so an agent's git never meets our lock. */
export const STATUS_COMMAND = ["--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--renames"];

/** What `git status` says beside the changes against the base: the untracked files, and how much of each change is staged. */
export interface IndexState {
  untracked: string[];
  /**
   * By path: `all` (the working tree adds nothing to the index), `partly` (it does); a path absent is
   * `none` (the index is as at the base). What a client shows to say what a commit would take.
   */
  staged: Map<string, ChangedFile["staged"]>;
}

/** Space-separated fields before the path in each kind of porcelain v2 record (the path itself may hold spaces). */
const FIELDS_BEFORE_PATH: Record<string, number> = { "1": 8, "2": 9, u: 10, "?": 1, "!": 1 };

/** Reads `git status --porcelain=v2 -z`: X is the index against HEAD, Y the working tree against the index. */
export function indexStateOf(porcelain: string): IndexState {
  const state: IndexState = { untracked: [], staged: new Map() };
  const records = porcelain.split("\0");
  for (let index = 0; index < records.length; index++) {
    const record = records[index] ?? "";
    const kind = record[0] ?? "";
    const before = FIELDS_BEFORE_PATH[kind];
    if (before === undefined) continue;
    const path = afterFields(record, before);
    // A rename's or copy's original path follows as a record of its own.
    if (kind === "2") index++;
    if (kind === "?") state.untracked.push(path);
    else if (kind !== "!" && record[2] !== ".") state.staged.set(path, record[3] === "." ? "all" : "partly");
  }
  return state;
}

function afterFields(record: string, count: number): string {
  let at = 0;
  for (let field = 0; field < count; field++) at = record.indexOf(" ", at) + 1;
  return record.slice(at);
}

/** The `@@ -a,b +c,d @@` names of the hunks of one file's diff against the base that are wholly in the index. */
export async function stagedHunks(root: string, path: string, diff: string): Promise<string[]> {
  const headers = diff
    .split("\n")
    .filter((line) => line.startsWith("@@ "))
    .slice(0, MAX_HUNKS_LOOKED_AT);
  const staged: string[] = [];
  for (const header of headers) {
    // A hunk is in the index when taking it back out of the index would apply.
    const check = await runGit(["apply", "--cached", "--check", "-R"], { cwd: root, input: patchOfHunks(diff, path, [header]), env: LITERAL_PATHS });
    if (check.code === 0) staged.push(hunkKey(header));
  }
  return staged;
}

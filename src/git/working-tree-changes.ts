import { lstat, open } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { decodeCursor, encodeCursor } from "../store/page-cursor.ts";
import type { ChangedFile, ChangeList, FileDiff } from "../schemas/changes.ts";
import { gitOutput, runGit } from "./git-runner.ts";
import { readRepository, type Repository } from "./repository-info.ts";
import { LITERAL_PATHS } from "./git-step.ts";
import { indexStateOf, stagedHunks, STATUS_COMMAND } from "./staged-state.ts";

export interface RepositoryStatus extends Repository {
  changes: Change[];
  /** How much of each change is staged, by path; one absent is `none`. */
  staged: ReadonlyMap<string, ChangedFile["staged"]>;
}

export interface ChangeLimits {
  /** A file larger than this (in the working tree or at HEAD) is named, with no diff and no line counts. */
  maxFileBytes: number;
}

export const defaultChangeLimits: ChangeLimits = { maxFileBytes: 1024 * 1024 };

export interface Change {
  path: string;
  oldPath: string | null;
  status: ChangedFile["status"];
}

const STATUS_BY_LETTER: Record<string, ChangedFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "added",
  T: "typechange",
  U: "conflicted",
};

/**
 * A git working tree's changes against HEAD (staged or not, untracked files included), read with real
 * git and bounded: a page of files at a time, line counts only for text files under the size limit,
 * and a file's diff only on request, never for a binary or an oversized file.
 */
export class WorkingTreeChanges {
  constructor(private readonly limits: ChangeLimits = defaultChangeLimits) {}

  async list(folder: string, limit: number, cursor?: string): Promise<ChangeList> {
    return this.page(folder, await this.statusOf(await this.repository(folder)), limit, cursor);
  }

  /** A page of `status`'s changes, with their line counts, as the list of `folder` answers it. */
  async page(folder: string, status: RepositoryStatus, limit: number, cursor?: string): Promise<ChangeList> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, 1)[0];
    const rest = after === undefined ? status.changes : status.changes.filter((change) => change.path > after);
    const page = rest.slice(0, limit);
    const counts = await this.lineCounts(status.root, status.base, page);
    const last = page.at(-1);
    return {
      folderPath: folder,
      repositoryRoot: status.root,
      branch: status.branch,
      head: status.head,
      files: page.map((change) => ({
        ...change,
        ...(counts.get(change.path) ?? { added: null, removed: null, binary: false }),
        staged: stagedOf(status, change),
      })),
      next: rest.length > limit && last ? encodeCursor([last.path]) : null,
    };
  }

  async diff(folder: string, path: string): Promise<FileDiff> {
    checkRelativePath(path);
    const repo = await this.repository(folder);
    const status = await this.changes(repo.root, repo.base, path);
    const change = status.changes.find((candidate) => candidate.path === path);
    if (!change) throw new NotFoundError(`${path} has no changes in ${folder}`);
    const lineCounts = await this.lineCounts(repo.root, repo.base, [change]);
    const counts = { ...(lineCounts.get(change.path) ?? { added: null, removed: null, binary: false }), staged: stagedOf(status, change) };
    const unsent = (tooLarge: boolean): FileDiff => ({ ...change, ...counts, tooLarge, diff: null, stagedHunks: [] });
    if (await this.tooLarge(repo.root, repo.base, change)) return unsent(true);
    if (counts.binary) return unsent(false);
    const result =
      change.status === "untracked"
        ? await runGit(["diff", "--no-index", "--no-color", "--", "/dev/null", change.path], { cwd: repo.root, timeoutMs: 10_000 })
        : await runGit(["diff", "--no-color", "-M", repo.base, "--", ...(change.oldPath ? [change.oldPath] : []), change.path], {
            cwd: repo.root,
            timeoutMs: 10_000,
          });
    // --no-index answers 1 when the files differ, which they always do here.
    if (result.code !== 0 && result.code !== 1) throw new Error(`git diff of ${path} failed: ${result.stderr.trim()}`);
    if (/^Binary files .* differ$/m.test(result.stdout)) return { ...unsent(false), binary: true };
    // Only a modified file's hunks can be staged one by one (the git routes' rule).
    const hunks = change.status === "modified" && counts.staged !== "none" ? await stagedHunks(repo.root, change.path, result.stdout) : [];
    return { ...change, ...counts, tooLarge: false, diff: result.stdout, stagedHunks: hunks };
  }

  /** The repository and every change in it, by path (what the list pages through). */
  async statusOf(repo: Repository): Promise<RepositoryStatus> {
    return { ...repo, ...(await this.changes(repo.root, repo.base)) };
  }

  /** The repository holding `folder` (repository-info.ts); 409 for a folder that is gone or that git does not know. */
  async repository(folder: string): Promise<Repository> {
    const exists = await lstat(folder).catch(() => undefined);
    if (!exists?.isDirectory()) throw new ConflictError(`the folder ${folder} does not exist`);
    const repository = await readRepository(folder);
    if (!repository) throw new ConflictError(`the folder ${folder} is not a git repository`);
    return repository;
  }

  /**
   * Every changed path, tracked (against the base, index and working tree together) and untracked, by
   * path, and how much of each is staged: two git processes, whatever the number of files. With `only`,
   * git status looks at that path alone (a file's diff needs no more; the tracked changes are still all
   * listed, as a rename is found among them).
   */
  private async changes(root: string, base: string, only?: string): Promise<Pick<RepositoryStatus, "changes" | "staged">> {
    const [tracked, status] = await Promise.all([
      runGit(["diff", "--name-status", "-z", "-M", base], { cwd: root, timeoutMs: 30_000 }),
      runGit(only === undefined ? STATUS_COMMAND : [...STATUS_COMMAND, "--", only], { cwd: root, timeoutMs: 30_000, env: LITERAL_PATHS }),
    ]);
    if (tracked.code !== 0) throw new Error(`git diff failed: ${tracked.stderr.trim()}`);
    if (status.code !== 0) throw new Error(`git status failed: ${status.stderr.trim()}`);
    const { untracked, staged } = indexStateOf(status.stdout);
    const changes: Change[] = [];
    const fields = tracked.stdout.split("\0");
    for (let index = 0; index < fields.length - 1; ) {
      const letter = fields[index]?.[0] ?? "";
      const status = STATUS_BY_LETTER[letter] ?? "modified";
      if (letter === "R" || letter === "C") {
        changes.push({ path: fields[index + 2] ?? "", oldPath: letter === "R" ? (fields[index + 1] ?? null) : null, status });
        index += 3;
      } else {
        changes.push({ path: fields[index + 1] ?? "", oldPath: null, status });
        index += 2;
      }
    }
    for (const path of untracked) changes.push({ path, oldPath: null, status: "untracked" });
    return { changes: changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), staged };
  }

  /** Lines added and removed per file of the page: git's counts for tracked files, the file's lines for untracked ones. */
  private async lineCounts(root: string, base: string, page: Change[]): Promise<Map<string, Pick<ChangedFile, "added" | "removed" | "binary">>> {
    const counts = new Map<string, Pick<ChangedFile, "added" | "removed" | "binary">>();
    const tracked = page.filter((change) => change.status !== "untracked");
    if (tracked.length > 0) {
      const paths = tracked.flatMap((change) => (change.oldPath ? [change.oldPath, change.path] : [change.path]));
      const numstat = await runGit(["diff", "--numstat", "-z", "-M", base, "--", ...paths], { cwd: root, timeoutMs: 30_000 });
      const fields = numstat.stdout.split("\0");
      for (let index = 0; index < fields.length - 1; ) {
        const [added, removed, path] = (fields[index] ?? "").split("\t");
        // A rename: the counts, then an empty path and the old and new paths as fields of their own.
        const renamed = path === "";
        const target = renamed ? fields[index + 2] : path;
        index += renamed ? 3 : 1;
        if (target === undefined) continue;
        const binary = added === "-";
        counts.set(target, { added: binary ? null : Number(added), removed: binary ? null : Number(removed), binary });
      }
    }
    for (const change of page.filter((candidate) => candidate.status === "untracked")) {
      counts.set(change.path, await this.untrackedCount(join(root, change.path)));
    }
    return counts;
  }

  private async untrackedCount(file: string): Promise<Pick<ChangedFile, "added" | "removed" | "binary">> {
    const stats = await lstat(file).catch(() => undefined);
    if (!stats?.isFile() || stats.size > this.limits.maxFileBytes) return { added: null, removed: 0, binary: false };
    const text = await readWhole(file, stats.size);
    if (text.includes(0)) return { added: null, removed: 0, binary: true };
    const newlines = text.reduce((count, byte) => count + (byte === 10 ? 1 : 0), 0);
    return { added: newlines + (text.length > 0 && text[text.length - 1] !== 10 ? 1 : 0), removed: 0, binary: false };
  }

  /** Whether the file is over the limit in the working tree or in the base. */
  private async tooLarge(root: string, base: string, change: Change): Promise<boolean> {
    const now = await lstat(join(root, change.path)).catch(() => undefined);
    if (now && now.size > this.limits.maxFileBytes) return true;
    if (change.status === "untracked" || change.status === "added") return false;
    const before = await gitOutput(["cat-file", "-s", `${base}:${change.oldPath ?? change.path}`], { cwd: root });
    return before !== undefined && Number(before) > this.limits.maxFileBytes;
  }
}

/** How much of a change is staged; an untracked file never is, though git may stage the deletion of a file at its path. */
const stagedOf = (status: Pick<RepositoryStatus, "staged">, change: Change): ChangedFile["staged"] =>
  change.status === "untracked" ? "none" : (status.staged.get(change.path) ?? "none");

/** A path inside the repository as the change list names it: relative, no `..`, no NUL. */
export function checkRelativePath(path: string): void {
  if (path.length === 0 || path.includes("\0") || isAbsolute(path) || path.split("/").some((part) => part === ".." || part === "")) {
    throw new InvalidInputError(`path: ${JSON.stringify(path)} is not a path inside the repository as the change list names it`);
  }
}

/** A file already sized under the limit, for counting its lines and looking for a NUL (binary). */
async function readWhole(file: string, size: number): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const buffer = new Uint8Array(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

import { InvalidInputError, NotFoundError } from "../errors.ts";
import type { GitSelection } from "../schemas/git.ts";
import { runGit } from "./git-runner.ts";
import { patchOfHunks } from "./hunk-patch.ts";
import { checkRelativePath, type Change, type RepositoryStatus } from "./working-tree-changes.ts";

/** What a stage, unstage or discard names, checked against the repository's changes. */
export interface ResolvedSelection {
  /** Whole files. */
  files: Change[];
  /** Parts of modified files: each file's patch against HEAD holding only the named hunks. */
  patches: { change: Change; patch: string }[];
}

/**
 * The changed files and hunks `selection` names: 400 when it names nothing or a path that leaves the
 * repository, 404 for a path with no change or a hunk its diff lacks.
 */
export async function resolveSelection(status: RepositoryStatus, selection: GitSelection): Promise<ResolvedSelection> {
  const paths = selection.paths ?? [];
  const hunks = selection.hunks ?? [];
  if (paths.length === 0 && hunks.length === 0) throw new InvalidInputError("paths and hunks: name at least one file or hunk");
  const changeOf = (path: string): Change => {
    checkRelativePath(path);
    const change = status.changes.find((candidate) => candidate.path === path);
    if (!change) throw new NotFoundError(`${path} has no changes in ${status.root}`);
    return change;
  };
  const files = [...new Set(paths)].map(changeOf);
  const headersByPath = new Map<string, string[]>();
  for (const hunk of hunks) headersByPath.set(hunk.path, [...(headersByPath.get(hunk.path) ?? []), hunk.header]);
  const patches: ResolvedSelection["patches"] = [];
  for (const [path, headers] of headersByPath) {
    const change = changeOf(path);
    if (change.status !== "modified") {
      throw new InvalidInputError(`hunks: ${path} is ${change.status}; name hunks only of a modified file, and the whole file otherwise`);
    }
    if (files.includes(change)) throw new InvalidInputError(`hunks: ${path} is named whole in paths too`);
    const diff = await runGit(["diff", "--no-color", "--no-ext-diff", status.base, "--", path], { cwd: status.root, timeoutMs: 30_000 });
    if (diff.code !== 0) throw new Error(`git diff of ${path} failed: ${diff.stderr.trim()}`);
    patches.push({ change, patch: patchOfHunks(diff.stdout, path, headers) });
  }
  return { files, patches };
}

/** The paths a whole-file change touches: a rename's old path too. */
export const pathsOf = (changes: Change[]): string[] => changes.flatMap((change) => (change.oldPath ? [change.oldPath, change.path] : [change.path]));

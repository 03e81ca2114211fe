import { copyFileSync, existsSync, lstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { gitStep } from "./git-step.ts";

/**
 * Calls `use` with a private index file: a copy of the repository's (or empty, with `empty`), removed after.
 * Git run with `GIT_INDEX_FILE` set to it leaves the real index alone.
 */
export async function withPrivateIndex<T>(root: string, use: (env: { GIT_INDEX_FILE: string }) => Promise<T>, empty = false): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "atrium-index-"));
  try {
    const file = join(dir, "index");
    if (!empty) {
      const named = (await gitStep(["rev-parse", "--git-path", "index"], { cwd: root })).stdout.trim();
      const real = isAbsolute(named) ? named : join(root, named);
      if (existsSync(real)) copyFileSync(real, file);
    }
    return await use({ GIT_INDEX_FILE: file });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The tree of the working tree as it is now: the index with `paths` as the working tree has them
 * (untracked files included, gone ones left out), written as git objects. Neither the index nor the
 * working tree changes.
 */
export function snapshotTree(root: string, paths: string[]): Promise<string> {
  return withPrivateIndex(root, async (env) => {
    const indexed = (await gitStep(["ls-files", "-z", "--", ...paths], { cwd: root, env })).stdout.split("\0");
    // `git add` refuses a path neither in the index nor on disk (a rename's old path, once staged).
    const present = paths.filter((path) => indexed.includes(path) || lstatSync(join(root, path), { throwIfNoEntry: false }) !== undefined);
    if (present.length > 0) await gitStep(["add", "-A", "-f", "--", ...present], { cwd: root, env });
    return (await gitStep(["write-tree"], { cwd: root, env })).stdout.trim();
  });
}

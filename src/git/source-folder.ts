import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { cloneFailureReason } from "../projects/git-clone.ts";
import { checkCloneUrl, redactCredentials } from "../projects/repo-url.ts";
import { gitOutput, runGit } from "./git-runner.ts";

const CLONE_TIMEOUT_MS = 120_000;

/** Where skills or a plugin are read from: a local folder, or a git repository with an optional ref and folder. */
export type ImportSource = { kind: "folder"; path: string } | { kind: "git"; url: string; ref?: string; folder?: string };

/**
 * `source` as the client wrote it: an existing absolute folder, or a git URL, where a
 * `…/tree/<ref>/<folder>` tail (as code hosts show a folder) names the branch and the folder inside.
 */
export function parseImportSource(source: string): ImportSource {
  if (isAbsolute(source) && existsSync(source) && statSync(source).isDirectory()) {
    return { kind: "folder", path: source };
  }
  const tree = /^(.+?)\/tree\/([^/]+)(?:\/(.+?))?\/*$/.exec(source);
  const url = tree ? tree[1]! : source;
  checkCloneUrl(url);
  const ref = tree?.[2];
  const folder = tree?.[3];
  if (ref !== undefined && (ref.startsWith("-") || !/^[\w./-]+$/.test(ref))) throw new InvalidInputError(`source names a ref git would not take: ${ref}`);
  if (folder?.split("/").some((part) => part === ".." || part === "")) throw new InvalidInputError("source's folder must not contain `..` or empty parts");
  return { kind: "git", url, ref, folder };
}

/** The folder to read, and the commit it is at (null for a local folder that is not a git checkout). */
export interface SourceFolder {
  folder: string;
  commit: string | null;
}

/**
 * Clones a git source (shallow, no prompts, nothing run from it) into a new folder under `workDir`, or
 * takes a local folder as it is; calls `use` with the folder to read and its commit, then removes the clone.
 */
export async function withSourceFolder<T>(source: ImportSource, workDir: string, use: (found: SourceFolder) => T | Promise<T>): Promise<T> {
  if (source.kind === "folder") return use({ folder: source.path, commit: await headCommit(source.path) });
  const clone = mkdtempSync(join(workDir, ".import-"));
  try {
    const args = ["clone", "--depth", "1", "--quiet", ...(source.ref ? ["--branch", source.ref] : []), "--", source.url, join(clone, "repo")];
    // A hook path that is nowhere: no hook of the user's configuration runs for a repository being read.
    const result = await runGit(["-c", "core.hooksPath=/dev/null", ...args], { timeoutMs: CLONE_TIMEOUT_MS });
    if (result.code !== 0) throw new InvalidInputError(`could not clone ${redactCredentials(source.url)}: ${cloneFailureReason(result.stderr)}`);
    const folder = join(clone, "repo", ...(source.folder?.split("/") ?? []));
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new InvalidInputError(`${source.folder} is not a folder in ${redactCredentials(source.url)}`);
    return await use({ folder, commit: await headCommit(join(clone, "repo")) });
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

/** The commit a folder's checkout is at; null when it is in none. */
const headCommit = async (folder: string): Promise<string | null> => (await gitOutput(["-C", folder, "rev-parse", "--verify", "HEAD"])) ?? null;

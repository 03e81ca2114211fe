import { accessSync, chmodSync, constants, copyFileSync, existsSync, linkSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replacing the running executable. Everything happens in the executable's own folder, so each step
 * is a rename on one file system: the path always holds a complete executable, old or new, and the
 * running process keeps its (old) file open whatever happens to the name.
 */

export const previousExecutablePath = (executable: string): string => `${executable}.previous`;

/** A fresh hidden name beside the executable for a download in progress. */
export function stagingPathFor(executable: string): string {
  return join(dirname(executable), `.${basename(executable)}.update-${process.pid}-${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}`);
}

/** Why `executable` cannot be replaced in place (its folder is not writable), or undefined when it can. */
export function replaceProblem(executable: string): string | undefined {
  try {
    accessSync(dirname(executable), constants.W_OK);
    return undefined;
  } catch {
    return `the folder of ${executable} is not writable by this user; reinstall with install.sh (or run the update as the owner)`;
  }
}

/**
 * Puts the checked `staged` file in place of `executable`, keeping the current one as
 * `<executable>.previous` for a rollback. The old content is hard-linked first (copied where links are
 * not possible), so there is no moment without an executable at the path.
 */
export function swapInExecutable(executable: string, staged: string): string {
  const previous = previousExecutablePath(executable);
  rmSync(previous, { force: true });
  try {
    linkSync(executable, previous);
  } catch {
    copyFileSync(executable, previous);
    chmodSync(previous, 0o755);
  }
  renameSync(staged, executable);
  return previous;
}

/** Puts `<executable>.previous` back in place; false when there is none to restore. */
export function restorePreviousExecutable(executable: string, previous = previousExecutablePath(executable)): boolean {
  if (!existsSync(previous)) return false;
  renameSync(previous, executable);
  return true;
}

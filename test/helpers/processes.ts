import { readFileSync } from "node:fs";

/**
 * Whether a process with this pid still runs: it exists (signal 0 checks without sending anything) and,
 * where /proc tells, is not a zombie. A grandchild killed with its process group is an orphan that init
 * reaps, on some machines a second or two later; it has ended all the same.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { startMark } from "../process/child-processes.ts";

export class DataDirBusyError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** Who wrote a lock: its pid, and when that process started (absent in locks of older builds). */
interface LockHolder {
  pid: number;
  startMark: string | undefined;
}

function holderOf(lockFile: string): LockHolder | undefined {
  try {
    const [pidLine = "", markLine = ""] = readFileSync(lockFile, "utf8").split("\n");
    const pid = Number(pidLine.trim());
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    return { pid, startMark: markLine.trim() || undefined };
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's writer still runs. Its pid alone is not enough: after a reboot or a kill -9 the
 * pid may belong to another process, so a lock that names a start time must match it. A lock of an
 * older build names none; its live pid is taken at its word.
 */
function heldByLiveProcess(holder: LockHolder): boolean {
  if (holder.pid === process.pid || !isAlive(holder.pid)) return false;
  if (holder.startMark === undefined) return true;
  const current = startMark(holder.pid);
  return current === null || current === holder.startMark;
}

/**
 * One server per data dir: a lock file holding the server's pid and the time its process started,
 * created exclusively. A lock left by a process that no longer runs (kill -9, a crash), or whose pid
 * now belongs to another process, is taken over. Taken before any start-up work, so a second
 * `atrium serve` touches nothing of the running one's.
 */
export function acquireDataDirLock(lockFile: string): () => void {
  const ownMark = startMark(process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, "wx", 0o600);
      // The pid stays alone on the first line, where install.sh reads it.
      writeSync(fd, ownMark === null ? `${process.pid}\n` : `${process.pid}\n${ownMark}\n`);
      closeSync(fd);
      return () => {
        if (holderOf(lockFile)?.pid === process.pid) rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const holder = holderOf(lockFile);
      if (holder !== undefined && heldByLiveProcess(holder)) {
        throw new DataDirBusyError(`another atrium (pid ${holder.pid}) is using this data dir`);
      }
      rmSync(lockFile, { force: true }); // stale: its process is gone, or its pid now names another
    }
  }
  throw new DataDirBusyError(`could not take the lock ${lockFile}`);
}

import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";

export class DataDirBusyError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

function holderOf(lockFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One server per data dir: a lock file holding the server's pid, created exclusively. A lock left by
 * a process that no longer runs (kill -9, a crash) is taken over. Taken before any start-up work, so a
 * second `atrium serve` touches nothing of the running one's.
 */
export function acquireDataDirLock(lockFile: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (holderOf(lockFile) === process.pid) rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const holder = holderOf(lockFile);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        throw new DataDirBusyError(`another atrium (pid ${holder}) is using this data dir`);
      }
      rmSync(lockFile, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirBusyError(`could not take the lock ${lockFile}`);
}

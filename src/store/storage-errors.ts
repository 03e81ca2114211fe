/** A write that failed because of where the data lives, not because of what was written. */
export interface StorageProblem {
  kind: "busy" | "full" | "io";
  /** A sentence for the client and the health report. */
  message: string;
}

/**
 * What kind of storage failure an error is (SQLite's codes, or the OS's for files), if it is one:
 * a database locked by another process, a full disk, or an I/O error. Anything else is a bug or bad
 * input, and is left to the caller.
 */
export function storageProblem(error: unknown): StorageProblem | undefined {
  const code = String((error as { code?: unknown } | undefined)?.code ?? "");
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || code.startsWith("SQLITE_BUSY_")) {
    return { kind: "busy", message: "the database is locked by another process; try again shortly" };
  }
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT") {
    return { kind: "full", message: "the disk holding Atrium's data is full; free some space and try again" };
  }
  if (code.startsWith("SQLITE_IOERR") || code === "EIO" || code === "SQLITE_READONLY" || code === "EROFS") {
    return { kind: "io", message: `the data could not be written (${code}); check the disk holding Atrium's data` };
  }
  return undefined;
}

/** Waits between attempts of a failed background write: 50 ms, doubling up to `maxMs`. */
export function backoffMs(attempt: number, maxMs = 2000): number {
  return Math.min(maxMs, 50 * 2 ** Math.min(attempt, 10));
}

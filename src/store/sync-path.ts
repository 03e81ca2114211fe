import { closeSync, fsyncSync, openSync } from "node:fs";

/** Flushes a file, or a folder's entries (a rename or link in it), to the disk. */
export function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

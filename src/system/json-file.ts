import { renameSync, writeFileSync } from "node:fs";

/**
 * Writes `value` as JSON beside `path` (readable by its owner only) and renames it over the target, so
 * a reader never sees half a file and a crash leaves the old one whole.
 */
export function writeJsonAtomically(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

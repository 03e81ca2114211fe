import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Sets one entry of a JSON credentials file (such as OpenCode's auth.json), keeping the others. The
 * file is private to the user and replaced atomically, so the harness never reads half a file.
 */
export function writeCredentialEntry(path: string, key: string, value: unknown): void {
  let current: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) current = parsed as Record<string, unknown>;
  } catch (error) {
    // A missing file starts empty; a present but unreadable one must not be overwritten blindly.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Error(`${path} exists but is not a JSON object, so it was left alone`);
    }
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
  writeFileSync(temporary, `${JSON.stringify({ ...current, [key]: value }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

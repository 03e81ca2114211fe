import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { writeJsonAtomically } from "../system/json-file.ts";

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
  writeJsonAtomically(path, { ...current, [key]: value });
}

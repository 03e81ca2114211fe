import { cpSync, existsSync, lstatSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { InvalidInputError, TooLargeError } from "../errors.ts";
import { readSkill } from "./skill-folder.ts";

/** An import takes at most this much, over the skills it brings. */
export const IMPORT_LIMITS = { files: 2_000, bytes: 20 * 1024 * 1024 };
/** Skills are looked for this deep below the source's folder. */
const SEARCH_DEPTH = 4;

/** A skill found in a source: its folder, and what its SKILL.md says. */
export interface FoundSkill {
  folder: string;
  directoryName: string;
  name: string;
}

/** Every folder with a SKILL.md below `root` (links are not followed, `.git` is skipped). */
export function findSkills(root: string): FoundSkill[] {
  const found: FoundSkill[] = [];
  const walk = (dir: string, depth: number) => {
    if (existsSync(join(dir, "SKILL.md"))) {
      const directoryName = basename(dir);
      found.push({ folder: dir, directoryName, name: readSkill(dir, directoryName).name });
      return;
    }
    if (depth >= SEARCH_DEPTH) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith(".")) walk(join(dir, entry.name), depth + 1);
    }
  };
  walk(root, 0);
  return found.sort((a, b) => a.directoryName.localeCompare(b.directoryName));
}

/** The skills chosen by name (their SKILL.md name or folder name); an unknown name is refused, listing those found. */
export function chooseSkills(found: FoundSkill[], names: string[] | null | undefined): FoundSkill[] {
  if (!names) return found;
  const unknown = names.filter((name) => !found.some((skill) => skill.name === name || skill.directoryName === name));
  if (unknown.length > 0) {
    const available = found.map((skill) => skill.name).join(", ") || "none";
    throw new InvalidInputError(`no skill named ${unknown.join(", ")} in the source; it has: ${available}`);
  }
  return found.filter((skill) => names.includes(skill.name) || names.includes(skill.directoryName));
}

/** Refuses an import over the limits, before anything is copied. */
export function checkImportSize(skills: FoundSkill[]): void {
  let files = 0;
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        files++;
        bytes += statSync(path).size;
      }
      if (files > IMPORT_LIMITS.files || bytes > IMPORT_LIMITS.bytes) {
        throw new TooLargeError(
          `the skills to import hold more than ${IMPORT_LIMITS.files} files or ${IMPORT_LIMITS.bytes / 1024 / 1024} MiB; import fewer (skillNames)`,
        );
      }
    }
  };
  for (const skill of skills) walk(skill.folder);
}

/**
 * Copies a skill into a new folder beside `target` and renames it into place, so a half-copied skill
 * is never seen. Links inside the skill are left out: they could reach files outside the source.
 */
export function copySkill(from: string, target: string): void {
  const staging = join(dirname(target), `.${basename(target)}.importing`);
  try {
    cpSync(from, staging, { recursive: true, filter: (path) => !lstatSync(path).isSymbolicLink() || relative(from, path) === "" });
    renameSync(staging, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

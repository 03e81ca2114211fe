import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";

/** What a skill folder says of itself in its SKILL.md. */
export interface SkillInfo {
  name: string;
  description: string;
  invalid: boolean;
}

/** The entries of a skills folder that may be skills (dotfiles are not), sorted; none when it is missing. */
export function skillFolderNames(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

/** More than this in one skill is not read for comparison (its content then counts as its own). */
const HASH_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads `<folder>/SKILL.md`'s YAML front matter (`name`, `description`). A missing or unreadable file,
 * no front matter, no name, or a loop of links makes the skill invalid; nothing here throws.
 */
export function readSkill(folder: string, directoryName: string): SkillInfo {
  let text: string;
  try {
    realpathSync(folder);
    text = readFileSync(join(folder, "SKILL.md"), "utf8");
  } catch {
    return { name: directoryName, description: "", invalid: true };
  }
  const fields = frontMatter(text);
  const name = fields?.name ?? "";
  return { name: name || directoryName, description: fields?.description ?? "", invalid: !fields || !name };
}

/** The `key: value` lines between the opening and closing `---`, with folded (`>`) and literal (`|`) blocks. */
function frontMatter(text: string): Record<string, string> | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return undefined;
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
  if (end < 0) return undefined;
  const fields: Record<string, string> = {};
  for (let index = 1; index < end; index++) {
    const match = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(lines[index]!);
    if (!match) continue;
    let value = match[2]!.trim();
    if (value === ">" || value === "|" || value === ">-" || value === "|-") {
      const block: string[] = [];
      while (index + 1 < end && /^\s+\S/.test(lines[index + 1]!)) block.push(lines[++index]!.trim());
      value = block.join(value.startsWith(">") ? " " : "\n");
    }
    fields[match[1]!] = value.replace(/^(["'])(.*)\1$/, "$2");
  }
  return fields;
}

/** A digest of the folder's files (names and bytes), to tell copies of a skill from different skills. */
export function skillDigest(folder: string): string | undefined {
  const hash = createHash("sha256");
  let total = 0;
  const walk = (dir: string, prefix: string): boolean => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!walk(path, `${prefix}${entry.name}/`)) return false;
      } else if (entry.isFile()) {
        total += statSync(path).size;
        if (total > HASH_LIMIT_BYTES) return false;
        hash.update(`${prefix}${entry.name}\0`).update(readFileSync(path)).update("\0");
      }
    }
    return true;
  };
  try {
    return walk(realpathSync(folder), "") ? hash.digest("hex") : undefined;
  } catch {
    return undefined;
  }
}

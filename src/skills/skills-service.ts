import { cpSync, existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import type { GlobalSkill, HarnessSkill, HarnessSkillSet, ImportedSkills, SkillEvents, SkillsListing } from "../schemas/skills.ts";
import type { Store } from "../store/database.ts";
import type { HarnessSkillFolder } from "../harness/harness-user-files.ts";
import { readSkill, skillDigest, skillFolderNames } from "./skill-folder.ts";
import { parseImportSource, withSourceFolder } from "../git/source-folder.ts";
import { checkImportSize, chooseSkills, copySkill, findSkills } from "./skill-import.ts";

export interface SkillsServiceDeps {
  /** `<data>/skills`: the one copy of each global skill. */
  canonicalDir: string;
  /** Read fresh each time: an account switch moves a harness's folder. */
  folders(): HarnessSkillFolder[];
  store: Store;
  events: EventLog<typeof SkillEvents>;
  logger: Logger;
}

/** What is at a path in a harness's skills folder, as far as Atrium is concerned. */
type Entry = "missing" | "global-link" | "broken-link" | "own";

/**
 * Skills: the folders each harness reads, and the global skills Atrium keeps once in its data dir
 * and links into every harness. Nothing is cached: every answer reads the folders as they are now.
 * Changes that touch several folders undo what they did when a step fails.
 */
export class SkillsService {
  constructor(private readonly deps: SkillsServiceDeps) {}

  list(): SkillsListing {
    const folders = this.deps.folders();
    const global = this.globalNames().map((directoryName) => this.globalSkill(directoryName, folders));
    const harnesses: HarnessSkillSet[] = folders.map((folder) => ({ ...folder, skills: this.harnessSkills(folder) }));
    const digests = new Map<string, string | undefined>();
    const digestOf = (path: string) => {
      if (!digests.has(path)) digests.set(path, skillDigest(path));
      return digests.get(path);
    };
    for (const set of harnesses) {
      for (const skill of set.skills) {
        if (skill.classification !== "independent") continue;
        skill.duplicateOf = this.duplicateOf(skill, global, harnesses, digestOf);
        if (skill.duplicateOf) skill.classification = "duplicate";
      }
    }
    return { canonicalDir: this.deps.canonicalDir, global, harnesses };
  }

  /**
   * Moves a harness's skill folder into the canonical dir, leaves a link in its place, and links it
   * into every other harness that reads skills; one whose folder already holds that name keeps it.
   */
  makeGlobal(harnessId: string, directoryName: string): SkillsListing {
    const folders = this.deps.folders();
    const folder = this.folder(folders, harnessId);
    const source = join(folder.skillsDir, directoryName);
    const entry = this.entry(source);
    if (entry === "missing") throw new NotFoundError(`${folder.harnessName} has no skill folder ${directoryName} in ${folder.skillsDir}`);
    if (entry !== "own") throw new ConflictError(`${source} is already a link, not a skill folder of ${folder.harnessName}'s own`);
    const target = join(this.deps.canonicalDir, directoryName);
    if (existsSync(target)) throw new ConflictError(`a global skill named ${directoryName} exists already`);
    this.changeAtomically(`make ${directoryName} global`, (undo) => {
      mkdirSync(this.deps.canonicalDir, { recursive: true });
      moveFolder(source, target);
      undo.push(() => moveFolder(target, source));
      symlinkSync(target, source);
      undo.push(() => unlinkSync(source));
      for (const other of folders) {
        if (other.harnessId !== harnessId) this.link(directoryName, other, undo);
      }
    });
    return this.changed([directoryName]);
  }

  /** Links a global skill into these harnesses; refused (nothing changed) when one holds its own of that name. */
  install(directoryName: string, harnessIds: string[]): SkillsListing {
    this.requireGlobal(directoryName);
    const folders = this.deps.folders();
    const chosen = [...new Set(harnessIds)].map((id) => this.folder(folders, id));
    for (const folder of chosen) {
      if (this.entry(join(folder.skillsDir, directoryName)) === "own") {
        throw new ConflictError(`${folder.harnessName} holds a skill of its own named ${directoryName} in ${folder.skillsDir}; it is left as it is`);
      }
    }
    this.changeAtomically(`install ${directoryName}`, (undo) => {
      for (const folder of chosen) this.link(directoryName, folder, undo);
    });
    return this.changed([directoryName]);
  }

  /** Removes a global skill's link from one harness. */
  uninstall(directoryName: string, harnessId: string): SkillsListing {
    this.requireGlobal(directoryName);
    const folder = this.folder(this.deps.folders(), harnessId);
    const path = join(folder.skillsDir, directoryName);
    const entry = this.entry(path);
    if (entry === "own") throw new ConflictError(`${path} is ${folder.harnessName}'s own skill, not a link to the global one; it is left as it is`);
    if (entry === "missing") throw new NotFoundError(`${directoryName} is not installed for ${folder.harnessName}`);
    unlinkSync(path);
    return this.changed([directoryName]);
  }

  /** Removes a global skill and every link to it; folders the user made are never touched. */
  remove(directoryName: string): SkillsListing {
    const target = this.requireGlobal(directoryName);
    for (const folder of this.deps.folders()) {
      const path = join(folder.skillsDir, directoryName);
      if (this.linkTarget(path) === target) unlinkSync(path);
    }
    rmSync(target, { recursive: true, force: true });
    return this.changed([directoryName]);
  }

  /**
   * Imports the skills of a git repository or a local folder into the canonical dir (all, or those
   * named); nothing in the source is run. Refused whole when one is named like a global skill already.
   */
  async importRemote(source: string, skillNames: string[] | null | undefined): Promise<ImportedSkills> {
    const parsed = parseImportSource(source);
    const canonicalDir = this.deps.canonicalDir;
    mkdirSync(canonicalDir, { recursive: true });
    const imported = await withSourceFolder(parsed, canonicalDir, ({ folder }) => {
      const chosen = chooseSkills(findSkills(folder), skillNames);
      if (chosen.length === 0) throw new InvalidInputError("the source holds no folder with a SKILL.md");
      const names = chosen.map((skill) => skill.directoryName);
      const twice = names.find((name, index) => names.indexOf(name) !== index);
      if (twice) throw new ConflictError(`the source holds two skill folders named ${twice}; choose one with skillNames`);
      const taken = names.filter((name) => existsSync(join(canonicalDir, name)));
      if (taken.length > 0) throw new ConflictError(`global skills named ${taken.join(", ")} exist already; nothing was imported`);
      checkImportSize(chosen);
      this.changeAtomically("import the skills", (undo) => {
        for (const skill of chosen) {
          const target = join(canonicalDir, skill.directoryName);
          copySkill(skill.folder, target);
          undo.push(() => rmSync(target, { recursive: true, force: true }));
        }
      });
      return names;
    });
    this.changed(imported);
    const skills = imported.map((directoryName) => {
      const path = join(canonicalDir, directoryName);
      return { ...readSkill(path, directoryName), directoryName, path };
    });
    return { dir: canonicalDir, skills };
  }

  private changed(skills: string[]): SkillsListing {
    this.deps.store.transaction(() => this.deps.events.append("skills.changed", "skills", { skills }));
    return this.list();
  }

  /** Runs `change`; when a step fails, what was done is undone in reverse and the failure is reported. */
  private changeAtomically(what: string, change: (undo: Array<() => void>) => void): void {
    const undo: Array<() => void> = [];
    try {
      change(undo);
    } catch (error) {
      for (const step of undo.reverse()) {
        try {
          step();
        } catch (undoError) {
          this.deps.logger.error("a skills change could not be fully undone", { what, error: undoError });
        }
      }
      throw new ConflictError(`could not ${what}: ${(error as Error).message}; what was done is undone`);
    }
  }

  /** Links `target` into a harness's folder unless something is there already (that is a conflict, left alone). */
  private link(directoryName: string, folder: HarnessSkillFolder, undo: Array<() => void>): void {
    const target = join(this.deps.canonicalDir, directoryName);
    const path = join(folder.skillsDir, directoryName);
    if (this.entry(path) !== "missing") return;
    const created = firstMissingAncestor(folder.skillsDir);
    mkdirSync(folder.skillsDir, { recursive: true });
    if (created) undo.push(() => rmSync(created, { recursive: true, force: true }));
    symlinkSync(target, path);
    undo.push(() => unlinkSync(path));
  }

  private folder(folders: HarnessSkillFolder[], harnessId: string): HarnessSkillFolder {
    const folder = folders.find((candidate) => candidate.harnessId === harnessId);
    if (!folder) throw new NotFoundError(`no harness with id ${harnessId} reads skills`);
    return folder;
  }

  /** The global skill's folder; 404 when there is none of that name. */
  private requireGlobal(directoryName: string): string {
    const path = join(this.deps.canonicalDir, directoryName);
    if (!isDirectory(path)) throw new NotFoundError(`no global skill is named ${directoryName}`);
    return path;
  }

  private globalNames(): string[] {
    return skillFolderNames(this.deps.canonicalDir).filter((name) => isDirectory(join(this.deps.canonicalDir, name)));
  }

  private globalSkill(directoryName: string, folders: HarnessSkillFolder[]): GlobalSkill {
    const path = join(this.deps.canonicalDir, directoryName);
    const installs = folders.flatMap((folder) => {
      const entry = this.entry(join(folder.skillsDir, directoryName));
      if (entry === "missing") return [];
      return [{ harnessId: folder.harnessId, state: entry === "global-link" ? ("linked" as const) : ("conflict" as const) }];
    });
    return { ...readSkill(path, directoryName), directoryName, path, installs };
  }

  private harnessSkills(folder: HarnessSkillFolder): HarnessSkill[] {
    return skillFolderNames(folder.skillsDir).flatMap((directoryName) => {
      const path = join(folder.skillsDir, directoryName);
      const entry = this.entry(path);
      if (entry === "own" && !isDirectory(path)) return [];
      const classification = entry === "global-link" ? "linked" : entry === "broken-link" ? "broken-link" : "independent";
      return [{ harnessId: folder.harnessId, directoryName, ...readSkill(path, directoryName), path, classification, duplicateOf: null }];
    });
  }

  /** A global skill or another harness's own skill of the same name whose content differs. */
  private duplicateOf(skill: HarnessSkill, global: GlobalSkill[], harnesses: HarnessSkillSet[], digestOf: (path: string) => string | undefined): string | null {
    const mine = digestOf(skill.path);
    const differs = (path: string) => mine === undefined || digestOf(path) !== mine;
    const globalTwin = global.find((candidate) => candidate.name === skill.name || candidate.directoryName === skill.directoryName);
    if (globalTwin && differs(globalTwin.path)) return "global";
    for (const set of harnesses) {
      if (set.harnessId === skill.harnessId) continue;
      const twin = set.skills.find((candidate) => candidate.classification !== "linked" && candidate.name === skill.name && candidate.path !== skill.path);
      if (twin && differs(twin.path)) return set.harnessId;
    }
    return null;
  }

  private entry(path: string): Entry {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      return "missing";
    }
    if (!stats.isSymbolicLink()) return "own";
    if (!existsSync(path)) return "broken-link";
    return this.linkTarget(path)?.startsWith(this.deps.canonicalDir + sep) ? "global-link" : "own";
  }

  /** Where a link at `path` points, as an absolute path; undefined when `path` is not a link. */
  private linkTarget(path: string): string | undefined {
    try {
      return resolve(dirname(path), readlinkSync(path));
    } catch {
      return undefined;
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A rename, or a copy and delete across file systems (the data dir and HOME may be on different ones). */
function moveFolder(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true });
    rmSync(from, { recursive: true, force: true });
  }
}

/** The outermost folder of `dir` that does not exist yet (what a recursive mkdir would create), if any. */
function firstMissingAncestor(dir: string): string | undefined {
  let missing: string | undefined;
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing = current;
    if (dirname(current) === current) break;
  }
  return missing;
}

import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import { ForbiddenError, InvalidInputError, NotFoundError } from "../errors.ts";

/** Linux names an open file's real path at /proc/self/fd/N, and resolves paths through it to the very folder opened. */
const PROC_FD = process.platform === "linux" ? "/proc/self/fd" : undefined;

const OPEN_FOLDER = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A path as the client gives it: relative to the root, no `..`, no NUL; `""` or `.` is the root itself. */
export function relativeParts(path: string, field = "path"): string[] {
  if (path.includes("\0")) throw new InvalidInputError(`${field}: a path cannot hold a NUL byte`);
  if (isAbsolute(path)) throw new InvalidInputError(`${field}: ${JSON.stringify(path)} is absolute; give a path relative to the folder`);
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new InvalidInputError(`${field}: ${JSON.stringify(path)} goes up with "..": give a path inside the folder`);
  return parts;
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** The folder a path names, opened and checked: operations go through the open folder, not its name, so nothing swapped in after the check is reached. */
export class OpenFolder {
  constructor(
    /** Its real path, inside the root. */
    readonly realPath: string,
    /** Relative to the root (`""` for the root). */
    readonly relativePath: string,
    private readonly fd: number,
  ) {}

  /** The name of `entry` in this folder, reached through the open folder where the system allows it. */
  child(entry: string): string {
    return PROC_FD ? `${PROC_FD}/${this.fd}/${entry}` : join(this.realPath, entry);
  }

  /** What `entry` in this folder is, without following a symbolic link; undefined when there is none. */
  entryStats(entry: string): Stats | undefined {
    try {
      return lstatSync(this.child(entry));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return undefined;
      throw error;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A file opened for reading, checked to be the one inside the root that its path named. */
export interface OpenFile {
  fd: number;
  stats: Stats;
  relativePath: string;
}

/**
 * Every path of a request resolved inside one root (a project's folder), after symbolic links, on each
 * use: a path that leaves it (`..`, absolute, a link pointing out, a linked parent folder) is refused,
 * and what is opened is checked again once open (its real path through /proc/self/fd on Linux, else
 * its device and inode against the path checked), so a path turned into a link between the check and
 * the use is refused too. Writes go through the open parent folder; `.git` is never written.
 */
export class FolderAccess {
  readonly root: string;

  constructor(folder: string) {
    this.root = realpathSync(folder);
  }

  /** The folder at `path` (the root for `""`), opened and checked inside the root. */
  openFolder(path: string, field = "path"): OpenFolder {
    const real = this.realPathOf(relativeParts(path, field), path);
    let fd: number;
    try {
      fd = openSync(real, OPEN_FOLDER);
    } catch (error) {
      if (errorCode(error) === "ENOTDIR") throw notAFolder(real, path, field);
      throw this.openFailure(error, path);
    }
    try {
      const opened = this.openedPath(fd, real);
      return new OpenFolder(opened, this.relative(opened), fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * The folder an entry at `path` lives in, and its name there: the parent is resolved after links,
   * the entry itself is not followed (a move or delete acts on a link, not on what it points at).
   */
  openParent(path: string, field = "path"): { folder: OpenFolder; name: string } {
    const parts = relativeParts(path, field);
    const name = parts.at(-1);
    if (name === undefined) throw new InvalidInputError(`${field}: name a file or folder inside the folder, not the folder itself`);
    const gitWrite = () => new ForbiddenError(`${field}: ${path} is inside .git, which only git writes`);
    if (isGitPath(parts.join("/"))) throw gitWrite();
    const folder = this.openFolder(parts.slice(0, -1).join("/"), field);
    // Checked again where the parent really is: a link inside the folder may lead into .git.
    if (isGitPath(join(folder.relativePath, name))) {
      folder.close();
      throw gitWrite();
    }
    return { folder, name };
  }

  /**
   * The file at `path` to write: a link inside the root is followed to the file it names (that file is
   * written), a link pointing out is refused; the folder it is in is opened. `name` may not exist yet.
   */
  openForWrite(path: string, field = "path"): { folder: OpenFolder; name: string } {
    const parts = relativeParts(path, field);
    if (parts.length === 0) throw new InvalidInputError(`${field}: name a file inside the folder, not the folder itself`);
    const target = this.existingRealPath(join(this.root, ...parts));
    return this.openParent(target === undefined ? parts.join("/") : this.relative(this.checkInside(target, path)), field);
  }

  /** The file at `path`, opened for reading with its last step not followed, and checked once open. */
  openFile(path: string, field = "path"): OpenFile {
    const real = this.realPathOf(relativeParts(path, field), path);
    let fd: number;
    try {
      fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      throw this.openFailure(error, path);
    }
    try {
      const stats = fstatSync(fd);
      if (stats.isDirectory()) throw new InvalidInputError(`${field}: ${path} is a folder; list it with GET …/files?path=`);
      if (!stats.isFile()) throw new ForbiddenError(`${field}: ${path} is not a regular file`);
      return { fd, stats, relativePath: this.relative(this.openedPath(fd, real)) };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** An entry of an open folder, opened for reading without following a link (an entry turned into one is refused). */
  openEntry(folder: OpenFolder, name: string): OpenFile | undefined {
    let fd: number;
    try {
      fd = openSync(folder.child(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return undefined;
      throw this.openFailure(error, join(folder.relativePath, name));
    }
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      closeSync(fd);
      if (stats.isDirectory()) throw new InvalidInputError(`path: ${join(folder.relativePath, name)} is a folder`);
      throw new ForbiddenError(`${join(folder.relativePath, name)} is not a regular file`);
    }
    return { fd, stats, relativePath: join(folder.relativePath, name) };
  }

  /** `parts` joined to the root and resolved after links: 404 when nothing is there, 403 when it resolves outside. */
  private realPathOf(parts: string[], asGiven: string): string {
    const real = this.existingRealPath(join(this.root, ...parts));
    if (real === undefined) throw new NotFoundError(`${asGiven || "."} does not exist in the folder`);
    return this.checkInside(real, asGiven);
  }

  private existingRealPath(path: string): string | undefined {
    try {
      return realpathSync(path);
    } catch (error) {
      if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
      throw error;
    }
  }

  private checkInside(real: string, asGiven: string): string {
    if (real !== this.root && !real.startsWith(this.root + sep)) {
      throw new ForbiddenError(`${asGiven} leads outside the folder (through a symbolic link); only what is inside it is served`);
    }
    return real;
  }

  /** The real path of what `fd` opened, which must be inside the root and be what `checked` named. */
  private openedPath(fd: number, checked: string): string {
    if (PROC_FD) return this.checkInside(readlinkSync(`${PROC_FD}/${fd}`), this.relative(checked));
    const opened = fstatSync(fd);
    const now = lstatSync(checked);
    if (opened.dev !== now.dev || opened.ino !== now.ino) throw new ForbiddenError(`${this.relative(checked)} changed while it was opened; try again`);
    return checked;
  }

  private relative(real: string): string {
    return real === this.root ? "" : real.slice(this.root.length + 1);
  }

  private openFailure(error: unknown, path: string): Error {
    const code = errorCode(error);
    if (code === "ELOOP" || code === "EMLINK") return new ForbiddenError(`${path} became a symbolic link; it is not followed`);
    if (code === "ENOENT") return new NotFoundError(`${path} does not exist in the folder`);
    if (code === "ENOTDIR") return new NotFoundError(`${path} does not exist in the folder (a part of it is a file)`);
    if (code === "EACCES" || code === "EPERM") return new ForbiddenError(`${path} may not be read by the user the server runs as`);
    return error as Error;
  }
}

/**
 * Why a folder's open found no folder: a file there is the client's mistake (400); anything else (a
 * folder swapped for a link since it was resolved, which O_NOFOLLOW does not follow, or swapped back
 * meanwhile) is refused as a link (403).
 */
function notAFolder(real: string, path: string, field: string): Error {
  if (lstatSync(real, { throwIfNoEntry: false })?.isFile()) return new InvalidInputError(`${field}: ${path} is a file, not a folder`);
  return new ForbiddenError(`${path} became a symbolic link while it was opened; it is not followed`);
}

/** Whether a path relative to the root is `.git` or inside one (any repository's, a submodule's too). */
export function isGitPath(relativePath: string): boolean {
  return relativePath.split("/").some((part) => part.toLowerCase() === ".git");
}

import { readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { toolOutput } from "./tool-output.ts";

/** The files of one folder, as searched: paths relative to it, and the same in lower case. */
export interface FileList {
  paths: string[];
  lower: string[];
  /** Read from git (tracked and untracked files that are not ignored) rather than by a walk. */
  fromGit: boolean;
}

export interface FileNameIndexOptions {
  /** A list older than this is read again in the background while the one kept answers. */
  refreshMs: number;
  /** A walk of a folder that is not a git working tree stops after this many files. */
  maxWalkFiles: number;
  /** Lists kept at most; the one read longest ago goes first. */
  maxFolders: number;
  now?: () => number;
}

export const defaultFileNameIndexOptions: FileNameIndexOptions = { refreshMs: 5_000, maxWalkFiles: 200_000, maxFolders: 8 };

interface Kept {
  list: FileList;
  readAt: number;
  refreshing?: Promise<FileList>;
}

const LS_FILES_TIMEOUT_MS = 60_000;

/**
 * Every file of a folder, kept per folder so that a search by name on a large repository costs a scan
 * of a list in memory, not a walk: `git ls-files` in a working tree, a walk elsewhere (not into `.git`,
 * nor through linked folders). A list older than `refreshMs` is answered and read again behind the
 * answer; a change made through the interface drops it at once. At most `maxFolders` lists are kept.
 */
export class FileNameIndex {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly options: FileNameIndexOptions = defaultFileNameIndexOptions) {}

  async files(root: string): Promise<FileList> {
    const now = this.now();
    const kept = this.kept.get(root);
    if (!kept) {
      const list = await this.read(root);
      this.keep(root, list);
      return list;
    }
    if (now - kept.readAt > this.options.refreshMs && !kept.refreshing) {
      kept.refreshing = this.read(root);
      void kept.refreshing.then(
        (list) => this.keep(root, list),
        () => this.kept.delete(root),
      );
    }
    return kept.list;
  }

  private keep(root: string, list: FileList): void {
    this.kept.delete(root);
    if (this.kept.size >= this.options.maxFolders) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(root, { list, readAt: this.now() });
  }

  /** Forgets the folder's list: a file was written, moved or deleted through the interface. */
  invalidate(root: string): void {
    this.kept.delete(root);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async read(root: string): Promise<FileList> {
    const fromGit = await toolOutput(
      { command: ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"], cwd: root, timeoutMs: LS_FILES_TIMEOUT_MS },
      "\0",
    );
    const paths = fromGit ? fromGit.filter((path) => path !== "") : this.walk(root);
    return { paths, lower: paths.map((path) => path.toLowerCase()), fromGit: fromGit !== undefined };
  }

  private walk(root: string): string[] {
    const paths: string[] = [];
    const folders = [""];
    while (folders.length > 0 && paths.length < this.options.maxWalkFiles) {
      const folder = folders.pop()!;
      let entries: Dirent[];
      try {
        entries = readdirSync(join(root, folder), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          if (entry.name !== ".git") folders.push(path);
        } else if (paths.length < this.options.maxWalkFiles) {
          paths.push(path);
        }
      }
    }
    return paths.sort();
  }
}

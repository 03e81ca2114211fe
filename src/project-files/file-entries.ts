import { readdirSync, type Stats } from "node:fs";
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf, type Page } from "../store/page-cursor.ts";
import type { FileEntry } from "../schemas/project-files.ts";
import type { FolderAccess } from "./folder-access.ts";
import { toolOutput, toolRecords } from "./tool-output.ts";

type GitStatus = NonNullable<FileEntry["gitStatus"]>;

/** An entry as the interface names it; `folder` is its folder's path relative to the root. */
export function entryOf(folder: string, name: string, stats: Stats, gitStatus: GitStatus | null = null): FileEntry {
  return {
    name,
    path: folder === "" ? name : `${folder}/${name}`,
    type: stats.isSymbolicLink() ? "symlink" : stats.isDirectory() ? "dir" : "file",
    size: stats.size,
    mtime: stats.mtime.toISOString(),
    gitStatus,
  };
}

export interface ListRequest {
  ignored?: boolean;
  limit?: number;
  cursor?: string;
}

/** Folders first, then by name (code point order): the order pages are read in. */
const sortKey = (entry: FileEntry): string[] => [entry.type === "dir" ? "0" : "1", entry.name];
const after = (key: string[], than: string[]) => key[0]! > than[0]! || (key[0] === than[0] && key[1]! > than[1]!);

/** porcelain v1's two letters → what an entry shows. */
function statusOf(code: string): GitStatus {
  if (code === "??") return "untracked";
  if (code === "!!") return "ignored";
  if (code.includes("U") || code === "AA" || code === "DD") return "conflicted";
  if (code.includes("R")) return "renamed";
  if (code.includes("A")) return "added";
  if (code.includes("D")) return "deleted";
  return "modified";
}

const GIT_TIMEOUT_MS = 15_000;

/**
 * A folder's entries, folders first, a page at a time. In a git working tree, what .gitignore hides is
 * left out unless asked for (`git check-ignore`), `.git` with it, and each entry carries its status
 * (`git status`; a folder is `modified` when something under it changed).
 */
export class FileEntries {
  async list(access: FolderAccess, path: string, request: ListRequest): Promise<Page<FileEntry>> {
    const folder = access.openFolder(path);
    let entries: FileEntry[];
    try {
      entries = readdirSync(folder.child("."))
        .map((name) => {
          const stats = folder.entryStats(name);
          return stats && entryOf(folder.relativePath, name, stats);
        })
        .filter((entry): entry is FileEntry => entry !== undefined);
    } finally {
      folder.close();
    }
    const git = await this.gitView(access.root, folder.relativePath, entries);
    if (git) {
      entries = entries
        .filter((entry) => request.ignored === true || (entry.name !== ".git" && !git.ignored.has(entry.path)))
        .map((entry) => ({ ...entry, gitStatus: git.ignored.has(entry.path) ? "ignored" : (git.status.get(entry.path) ?? null) }));
    }
    const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
    const sorted = entries.map((entry) => ({ entry, key: sortKey(entry) })).sort((a, b) => (after(a.key, b.key) ? 1 : -1));
    const rest = cursor ? sorted.filter(({ key }) => after(key, cursor)) : sorted;
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    return pageOf(
      rest.slice(0, limit + 1),
      limit,
      ({ key }) => key,
      ({ entry }) => entry,
    );
  }

  /** What git says of the entries (relative to the root): those ignored, and the status of each changed one; undefined outside a working tree. */
  private async gitView(root: string, folder: string, entries: FileEntry[]): Promise<{ ignored: Set<string>; status: Map<string, GitStatus> } | undefined> {
    const prefix = await toolOutput({ command: ["git", "rev-parse", "--is-inside-work-tree", "--show-prefix"], cwd: root, timeoutMs: GIT_TIMEOUT_MS }, "\n");
    if (prefix?.[0] !== "true") return undefined;
    const inRepository = prefix[1] ?? "";
    const ignored = new Set<string>();
    const checked = entries.filter((entry) => entry.name !== ".git");
    if (checked.length > 0) {
      // Exit 1: none is ignored.
      await toolRecords(
        { command: ["git", "check-ignore", "-z", "--stdin"], cwd: root, input: checked.map((entry) => `${entry.path}\0`).join(""), timeoutMs: GIT_TIMEOUT_MS },
        "\0",
        (path) => {
          ignored.add(path);
          return true;
        },
      );
    }
    const status = new Map<string, GitStatus>();
    const changes = await toolOutput(
      {
        command: ["git", "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--", folder === "" ? "." : folder],
        cwd: root,
        timeoutMs: GIT_TIMEOUT_MS,
      },
      "\0",
    );
    const records = changes ?? [];
    for (let index = 0; index < records.length; index++) {
      const record = records[index]!;
      if (record.length < 4) continue;
      const code = record.slice(0, 2);
      // A rename's old path follows as a record of its own.
      if (code.includes("R") || code.includes("C")) index++;
      const fromRoot = record.slice(3).replace(/\/$/, "");
      if (!fromRoot.startsWith(inRepository)) continue;
      const path = fromRoot.slice(inRepository.length);
      const inFolder = folder === "" ? path : path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : undefined;
      if (inFolder === undefined || inFolder === "") continue;
      const [first, ...deeper] = inFolder.split("/");
      const entryPath = folder === "" ? first! : `${folder}/${first}`;
      status.set(entryPath, deeper.length > 0 && code !== "??" ? "modified" : statusOf(code));
    }
    return { ignored, status };
  }
}

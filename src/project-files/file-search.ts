import { closeSync } from "node:fs";
import type { FileSearchHit } from "../schemas/project-files.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf, type Page } from "../store/page-cursor.ts";
import { kindOf, readAll } from "./file-content.ts";
import type { FileNameIndex, FileList } from "./file-name-index.ts";
import type { FolderAccess, OpenFile } from "./folder-access.ts";
import { toolRecords, type ToolRun } from "./tool-output.ts";

export interface SearchRequest {
  q: string;
  limit?: number;
  cursor?: string;
}

export interface FileSearchDeps {
  names: FileNameIndex;
  /** The PATH ripgrep is looked for on (the server's own by default); a test names one without it. */
  path?: string;
}

/** A content search stops after this many matching lines; its pages are cut from them. */
const MAX_CONTENT_HITS = 5_000;
/** Files over this size are not searched by content. */
const MAX_SEARCHED_FILE_BYTES = 1024 * 1024;
const SNIPPET_CHARS = 200;
const SEARCH_TIMEOUT_MS = 30_000;

/** How well `lower` (a path in lower case) holds the letters of `query` in order; undefined when it does not. */
export function nameScore(lower: string, query: string): number | undefined {
  const slash = lower.lastIndexOf("/");
  let score = 0;
  let previous = -2;
  let index = 0;
  for (let at = 0; at < lower.length && index < query.length; at++) {
    if (lower.charCodeAt(at) !== query.charCodeAt(index)) continue;
    score += 1;
    if (at === previous + 1) score += 4;
    const before = at === 0 ? 47 : lower.charCodeAt(at - 1);
    // After `/`, `-`, `_`, `.` or a space: the start of a word.
    if (before === 47 || before === 45 || before === 95 || before === 46 || before === 32) score += 3;
    if (at > slash) score += 2;
    previous = at;
    index++;
  }
  if (index < query.length) return undefined;
  if (lower.includes(query, slash + 1)) score += 20;
  return score * 1000 - Math.min(lower.length, 999);
}

interface NameHit {
  path: string;
  score: number;
}

/** Best score first, then by path. */
const ranksBefore = (a: NameHit, b: NameHit) => a.score > b.score || (a.score === b.score && a.path < b.path);

/** The line cut to SNIPPET_CHARS characters around where `query` is in it. */
function snippetOf(line: string, query: string): string {
  const trimmed = line.replace(/\r$/, "");
  if (trimmed.length <= SNIPPET_CHARS) return trimmed;
  const at = Math.max(0, trimmed.toLowerCase().indexOf(query) - Math.floor(SNIPPET_CHARS / 4));
  return trimmed.slice(at, at + SNIPPET_CHARS);
}

interface LineHit {
  path: string;
  line: number;
  text: string;
}

/** Content hits by path, then line; the cursor is the last one's. */
const hitKey = (hit: LineHit) => [hit.path, String(hit.line).padStart(10, "0")];

/** ripgrep's command for a content search: lines holding `q` as plain text in any case, path NUL line ":" text. */
export const ripgrepCommand = (q: string) => [
  "rg",
  "--no-config",
  "--null",
  "--line-number",
  "--no-heading",
  "--color",
  "never",
  "--fixed-strings",
  "--ignore-case",
  "--hidden",
  "--glob",
  "!.git",
  "--max-filesize",
  String(MAX_SEARCHED_FILE_BYTES),
  "--",
  q,
];

/**
 * Searches a folder's files: by name, fuzzily, over FileNameIndex's kept list (best first); by content,
 * for lines holding the text in any case, with ripgrep where it is on the PATH, else `git grep` in a
 * working tree, else a scan of the listed files here (text files up to 1 MiB).
 */
export class FileSearch {
  constructor(private readonly deps: FileSearchDeps) {}

  async byName(access: FolderAccess, request: SearchRequest): Promise<Page<FileSearchHit>> {
    const query = request.q.toLowerCase();
    const files = await this.deps.names.files(access.root);
    const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
    const after = cursor ? { score: Number(cursor[0]), path: cursor[1]! } : undefined;
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    // The page's hits and one more, best first: kept sorted as they are found, so no sort of every match.
    const best: NameHit[] = [];
    for (let index = 0; index < files.lower.length; index++) {
      const score = nameScore(files.lower[index]!, query);
      if (score === undefined) continue;
      const hit = { path: files.paths[index]!, score };
      if (after && !ranksBefore(after, hit)) continue;
      if (best.length > limit && !ranksBefore(hit, best[limit]!)) continue;
      let low = 0;
      for (let high = best.length; low < high; ) {
        const middle = (low + high) >> 1;
        if (ranksBefore(best[middle]!, hit)) low = middle + 1;
        else high = middle;
      }
      best.splice(low, 0, hit);
      if (best.length > limit + 1) best.pop();
    }
    return pageOf(
      best,
      limit,
      (hit) => [String(hit.score), hit.path],
      (hit) => ({ path: hit.path, line: null, snippet: null }),
    );
  }

  async byContent(access: FolderAccess, request: SearchRequest): Promise<Page<FileSearchHit>> {
    const query = request.q.toLowerCase();
    const hits = await this.contentHits(access, request.q);
    hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, 2);
    const after = cursor
      ? hits.filter((hit) => {
          const key = hitKey(hit);
          return key[0]! > cursor[0]! || (key[0] === cursor[0] && key[1]! > cursor[1]!);
        })
      : hits;
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    return pageOf(after.slice(0, limit + 1), limit, hitKey, (hit) => ({ path: hit.path, line: hit.line, snippet: snippetOf(hit.text, query) }));
  }

  /** Which way content is searched here: what docs and tests name. */
  async contentTool(root: string): Promise<"ripgrep" | "git grep" | "scan"> {
    if (Bun.which("rg", this.deps.path === undefined ? {} : { PATH: this.deps.path })) return "ripgrep";
    return (await this.deps.names.files(root)).fromGit ? "git grep" : "scan";
  }

  private async contentHits(access: FolderAccess, q: string): Promise<LineHit[]> {
    const tool = await this.contentTool(access.root);
    if (tool === "scan") return this.scan(access, await this.deps.names.files(access.root), q.toLowerCase());
    const hits: LineHit[] = [];
    const run: ToolRun =
      tool === "ripgrep"
        ? {
            command: ripgrepCommand(q),
            cwd: access.root,
            timeoutMs: SEARCH_TIMEOUT_MS,
            path: this.deps.path,
          }
        : { command: ["git", "grep", "-z", "-n", "-I", "-i", "-F", "--untracked", "--no-color", "-e", q], cwd: access.root, timeoutMs: SEARCH_TIMEOUT_MS };
    await toolRecords(run, "\n", (record) => {
      // ripgrep: path NUL line ":" text; git grep -z: path NUL line NUL text.
      const nul = record.indexOf("\0");
      if (nul < 0) return true;
      const rest = record.slice(nul + 1);
      const separator = tool === "ripgrep" ? rest.indexOf(":") : rest.indexOf("\0");
      const line = Number(rest.slice(0, separator));
      if (separator < 0 || !Number.isInteger(line)) return true;
      hits.push({ path: record.slice(0, nul).replace(/^\.\//, ""), line, text: rest.slice(separator + 1) });
      return hits.length < MAX_CONTENT_HITS;
    });
    return hits;
  }

  /** The built-in scanner: each listed text file (opened inside the folder, links out refused and skipped), line by line. */
  private scan(access: FolderAccess, files: FileList, query: string): LineHit[] {
    const hits: LineHit[] = [];
    for (const path of files.paths) {
      const text = readText(access, path);
      if (text === undefined) continue;
      const lines = text.split("\n");
      for (let index = 0; index < lines.length; index++) {
        if (!lines[index]!.toLowerCase().includes(query)) continue;
        hits.push({ path, line: index + 1, text: lines[index]! });
        if (hits.length >= MAX_CONTENT_HITS) return hits;
      }
    }
    return hits;
  }
}

/** A file's text when it is a text file inside the folder and under the size searched; undefined otherwise. */
function readText(access: FolderAccess, path: string): string | undefined {
  let file: OpenFile;
  try {
    file = access.openFile(path);
  } catch {
    return undefined;
  }
  try {
    if (file.stats.size > MAX_SEARCHED_FILE_BYTES) return undefined;
    const bytes = readAll(file, MAX_SEARCHED_FILE_BYTES);
    return kindOf(bytes) === "text" ? new TextDecoder().decode(bytes) : undefined;
  } finally {
    closeSync(file.fd);
  }
}

import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, openSync, readSync, renameSync, unlinkSync, writeSync, type Stats } from "node:fs";
import {
  ConflictError,
  InvalidInputError,
  NotFoundError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RangeNotSatisfiableError,
  TooLargeError,
} from "../errors.ts";
import type { FileEntry } from "../schemas/project-files.ts";
import type { FolderAccess, OpenFile } from "./folder-access.ts";
import { entryOf } from "./file-entries.ts";

export interface FileLimits {
  /** A file larger than this is not read (413). */
  maxReadBytes: number;
  /** A body larger than this is not written (413). */
  maxWriteBytes: number;
}

export const defaultFileLimits: FileLimits = { maxReadBytes: 16 * 1024 * 1024, maxWriteBytes: 16 * 1024 * 1024 };

/** Bytes looked at to tell text from binary, as git does: a NUL among them, or bytes that are not UTF-8, make it binary. */
const SNIFF_BYTES = 8000;

/** A file's bytes as read (all of them, or the range asked for) with what describes the whole. */
export interface FileRead {
  path: string;
  bytes: Uint8Array;
  size: number;
  etag: string;
  mtime: string;
  kind: "text" | "binary";
  /** By the name's extension; text without a known type is `text/plain`. */
  contentType: string;
  /** The range sent, inclusive, when one was asked for and can be served. */
  range: { start: number; end: number } | null;
}

/** What a write or delete expects to find: `ifMatch` (the ETag read, or `*` for any file), `ifNoneMatch: "*"` (no file). */
export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** A strong ETag of the content: its SHA-256 in base64url, quoted. */
export function etagOf(bytes: Uint8Array): string {
  return `"${new Bun.CryptoHasher("sha256").update(bytes).digest("base64url")}"`;
}

/** Whether an `If-Match`/`If-Range` list names this ETag (strong comparison: a weak tag never matches) or is `*`. */
function listMatches(header: string, etag: string): boolean {
  return header.trim() === "*" || header.split(",").some((tag) => tag.trim() === etag);
}

/** Text (UTF-8 without a NUL in its first 8,000 bytes) or binary. */
export function kindOf(bytes: Uint8Array): "text" | "binary" {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return "binary";
  try {
    // `stream` leaves a character cut at the end of the sniffed bytes to a next call that never comes.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return "text";
  } catch {
    return "binary";
  }
}

function contentTypeOf(name: string, kind: "text" | "binary"): string {
  const type = Bun.file(name).type;
  return kind === "text" && type === "application/octet-stream" ? "text/plain;charset=utf-8" : type;
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` of a single range; anything else is ignored (the whole is sent), as RFC 9110 allows. */
function rangeOf(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const [first, last] = [match[1]!, match[2]!];
  const range =
    first === ""
      ? { start: Math.max(0, size - Number(last)), end: size - 1 }
      : { start: Number(first), end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
  if (range.start >= size || range.end < range.start) {
    throw new RangeNotSatisfiableError(`the range ${header} is not within the file's ${size} bytes`, size);
  }
  return range;
}

/** The whole of an open file, refused (413) over `limit` bytes. */
export function readAll(file: OpenFile, limit: number): Uint8Array {
  if (file.stats.size > limit) {
    throw new TooLargeError(`${file.relativePath} is ${file.stats.size} bytes; files over ${limit} bytes are not read through the interface`);
  }
  const buffer = new Uint8Array(file.stats.size);
  let read = 0;
  while (read < buffer.length) {
    const count = readSync(file.fd, buffer, read, buffer.length - read, read);
    if (count === 0) break;
    read += count;
  }
  return buffer.subarray(0, read);
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Reading, writing, deleting and moving a folder's files through its FolderAccess. A write replaces the
 * file at once (a new file beside it, then a rename), keeping its mode, and only when the file is still
 * what the client read (`If-Match`) or is not there yet (`If-None-Match: *`).
 */
export class FileContent {
  constructor(private readonly limits: FileLimits = defaultFileLimits) {}

  read(access: FolderAccess, path: string, request: { range?: string; ifRange?: string } = {}): FileRead {
    const file = access.openFile(path);
    try {
      const bytes = readAll(file, this.limits.maxReadBytes);
      const etag = etagOf(bytes);
      const kind = kindOf(bytes);
      const honoured = request.ifRange === undefined || listMatches(request.ifRange, etag);
      const range = honoured ? rangeOf(request.range, bytes.length) : null;
      return {
        path: file.relativePath,
        bytes: range ? bytes.subarray(range.start, range.end + 1) : bytes,
        size: bytes.length,
        etag,
        mtime: file.stats.mtime.toISOString(),
        kind,
        contentType: contentTypeOf(file.relativePath, kind),
        range,
      };
    } finally {
      closeSync(file.fd);
    }
  }

  /** Writes `bytes` as the file at `path`; `created` when there was none. */
  write(access: FolderAccess, path: string, bytes: Uint8Array, conditions: Preconditions): { entry: FileEntry; etag: string; created: boolean } {
    if (bytes.length > this.limits.maxWriteBytes) {
      throw new TooLargeError(`the content is ${bytes.length} bytes; files are written through the interface up to ${this.limits.maxWriteBytes} bytes`);
    }
    const { folder, name } = access.openForWrite(path);
    try {
      const current = this.current(access.openEntry(folder, name));
      checkConditions(conditions, current?.etag, `${folder.relativePath ? `${folder.relativePath}/` : ""}${name}`);
      const temporary = `.atrium-write-${crypto.randomUUID()}.tmp`;
      const stats = writeNew(folder.child(temporary), bytes, current?.mode);
      try {
        if (current) renameSync(folder.child(temporary), folder.child(name));
        else linkExclusive(folder.child(temporary), folder.child(name), name);
      } finally {
        if (!current) unlinkQuietly(folder.child(temporary));
      }
      const entry = entryOf(folder.relativePath, name, stats);
      return { entry, etag: etagOf(bytes), created: !current };
    } finally {
      folder.close();
    }
  }

  /** Deletes the file at `path` (a link is removed itself) when it is still what `If-Match` names. */
  remove(access: FolderAccess, path: string, conditions: Preconditions): FileEntry {
    const { folder, name } = access.openParent(path);
    try {
      const stats = folder.entryStats(name);
      if (!stats) throw new NotFoundError(`${path} does not exist in the folder`);
      if (stats.isDirectory()) throw new InvalidInputError(`path: ${path} is a folder; only files are deleted through the interface`);
      if (conditions.ifMatch === undefined) throw new PreconditionRequiredError('a delete needs "If-Match: <the ETag read>" (or "*" for whatever is there)');
      const current = stats.isFile() ? this.current(access.openEntry(folder, name)) : undefined;
      if (conditions.ifMatch.trim() !== "*" && (!current || !listMatches(conditions.ifMatch, current.etag))) {
        throw new PreconditionFailedError(`${path} changed since it was read (its ETag is no longer ${conditions.ifMatch})`);
      }
      unlinkSync(folder.child(name));
      return entryOf(folder.relativePath, name, stats);
    } finally {
      folder.close();
    }
  }

  /** Moves (renames) a file, folder or link inside the folder; the target must not exist. */
  move(access: FolderAccess, from: string, to: string): { from: FileEntry; to: FileEntry } {
    const source = access.openParent(from, "from");
    try {
      const target = access.openParent(to, "to");
      try {
        const stats = source.folder.entryStats(source.name);
        if (!stats) throw new NotFoundError(`from: ${from} does not exist in the folder`);
        if (target.folder.entryStats(target.name)) throw new ConflictError(`to: ${to} already exists; move it away or delete it first`);
        try {
          renameSync(source.folder.child(source.name), target.folder.child(target.name));
        } catch (error) {
          if (errorCode(error) === "EINVAL") throw new InvalidInputError(`to: a folder cannot be moved inside itself`);
          throw error;
        }
        const moved = target.folder.entryStats(target.name) ?? stats;
        return { from: entryOf(source.folder.relativePath, source.name, stats), to: entryOf(target.folder.relativePath, target.name, moved) };
      } finally {
        target.folder.close();
      }
    } finally {
      source.folder.close();
    }
  }

  private current(file: OpenFile | undefined): { etag: string; mode: number } | undefined {
    if (!file) return undefined;
    try {
      return { etag: etagOf(readAll(file, this.limits.maxReadBytes)), mode: file.stats.mode & 0o7777 };
    } finally {
      closeSync(file.fd);
    }
  }
}

function checkConditions(conditions: Preconditions, etag: string | undefined, path: string): void {
  if (conditions.ifNoneMatch !== undefined) {
    if (conditions.ifNoneMatch.trim() !== "*") throw new InvalidInputError('If-None-Match: only "*" (create, never replace) is taken on a write');
    if (etag !== undefined) throw new PreconditionFailedError(`${path} already exists`);
    return;
  }
  if (conditions.ifMatch === undefined) {
    throw new PreconditionRequiredError('a write needs "If-Match: <the ETag read>" to replace a file, or "If-None-Match: *" to create one');
  }
  if (etag === undefined) throw new PreconditionFailedError(`${path} does not exist (any more)`);
  if (!listMatches(conditions.ifMatch, etag))
    throw new PreconditionFailedError(`${path} changed since it was read (its ETag is no longer ${conditions.ifMatch})`);
}

/** A new file with these bytes, on disk before it is named (fsync), with the mode of the file it replaces. */
function writeNew(path: string, bytes: Uint8Array, mode: number | undefined): Stats {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode ?? 0o666);
  try {
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    if (mode !== undefined) fchmodSync(fd, mode);
    fsyncSync(fd);
    return fstatSync(fd);
  } catch (error) {
    unlinkQuietly(path);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** Names the new file only if the name is free (a link fails when it exists): a create never replaces. */
function linkExclusive(from: string, to: string, name: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    if (errorCode(error) === "EEXIST") throw new PreconditionFailedError(`${name} already exists`);
    throw error;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

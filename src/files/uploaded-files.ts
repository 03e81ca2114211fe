import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileRepository, StoredFile } from "../store/file-repository.ts";
import type { Store } from "../store/database.ts";
import type { Attachment, UploadedFile } from "../schemas/sessions.ts";
import { InvalidInputError, TooLargeError } from "../errors.ts";
import { newId } from "../ids.ts";

/** The largest file accepted. */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** Image types agents take as ACP image blocks; any other file is attached as a link to it. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export interface UploadedFilesDeps {
  repository: FileRepository;
  /** The folder the bytes are written to (private to the user). */
  dir: string;
  now?: () => Date;
}

/**
 * Files uploaded for prompts' attachments. Bytes are written (atomically) before the record, so a
 * record always has its file; an attachment is the record as a prompt shows it.
 */
export class UploadedFiles {
  constructor(private readonly deps: UploadedFilesDeps) {}

  upload(name: string, mimeType: string, contentBase64: string): UploadedFile {
    const bytes = Buffer.from(contentBase64, "base64");
    if (bytes.length > MAX_UPLOAD_BYTES) {
      throw new TooLargeError(`the file is ${bytes.length} bytes; uploads are limited to ${MAX_UPLOAD_BYTES} bytes (20 MiB)`);
    }
    const id = newId("file");
    // A folder of its own keeps the file under its own name: an agent given a link to it calls it that.
    const folder = join(this.deps.dir, id);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const path = join(folder, storedName(name));
    const stored: StoredFile = {
      id,
      name,
      mimeType: mimeType.toLowerCase(),
      sizeBytes: bytes.length,
      path,
      createdAt: (this.deps.now?.() ?? new Date()).toISOString(),
    };
    try {
      writeFileSync(`${path}.partial`, bytes, { mode: 0o600 });
      renameSync(`${path}.partial`, path);
      this.deps.repository.add(stored);
    } catch (error) {
      // A full disk, a locked database: nothing of the upload is left behind.
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
    return { ...attachmentOf(stored), createdAt: stored.createdAt };
  }

  /** The attachment for a prompt; an unknown id is the caller's mistake. */
  attachment(fileId: string, field: string): Attachment {
    const stored = this.deps.repository.get(fileId);
    if (!stored) throw new InvalidInputError(`${field}: no uploaded file has id ${fileId} (upload it with POST /v1/files first)`);
    return attachmentOf(stored);
  }

  /** The files a session attached (to forget those it alone used when it is deleted). */
  attachedTo(sessionId: string): string[] {
    return this.deps.repository.attachedTo(sessionId);
  }

  /**
   * Forgets those of these files that no session attaches any more: their records now, their bytes
   * once the transaction this runs in has committed. Runs inside a store transaction.
   */
  forgetUnattached(fileIds: string[], store: Store): void {
    const unused = this.deps.repository.unattached(fileIds);
    for (const id of unused) this.deps.repository.remove(id);
    // A file's folder (files/<id>/<name>), or the file itself where it was stored before folders (files/<id>).
    store.onCommit(() => {
      for (const id of unused) rmSync(join(this.deps.dir, id), { recursive: true, force: true });
    });
  }

  /** Where the file's bytes are, for passing it to an agent. */
  pathOf(fileId: string): string | undefined {
    return this.deps.repository.get(fileId)?.path;
  }
}

/** File systems count a name's bytes (255 at most); this leaves room for the `.partial` suffix while writing. */
const STORED_NAME_MAX_BYTES = 200;

/**
 * The file's name as a file system takes it: no folders, no NUL, its last 200 bytes of UTF-8 cut
 * between characters (the extension kept). The name it is shown by is kept whole in the database.
 */
function storedName(name: string): string {
  const characters = [...name.replace(/[/\\\0]/g, "_")];
  let start = characters.length;
  for (let bytes = 0; start > 0; start--) {
    bytes += Buffer.byteLength(characters[start - 1]!);
    if (bytes > STORED_NAME_MAX_BYTES) break;
  }
  const base = characters.slice(start).join("");
  return base === "" || base === "." || base === ".." ? "file" : base;
}

function attachmentOf(stored: StoredFile): Attachment {
  return {
    fileId: stored.id,
    name: stored.name,
    mimeType: stored.mimeType,
    sizeBytes: stored.sizeBytes,
    kind: IMAGE_TYPES.has(stored.mimeType) ? "image" : "file",
  };
}

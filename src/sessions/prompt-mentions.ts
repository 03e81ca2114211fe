import { closeSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { kindOf, readAll } from "../project-files/file-content.ts";
import { FolderAccess } from "../project-files/folder-access.ts";
import type { PromptMention } from "../schemas/sessions.ts";

/** Mentioned text files up to this size are embedded in the prompt when the agent accepts embedded context (as attachments are). */
export const EMBED_TEXT_MAX_BYTES = 256 * 1024;

/**
 * A file of the session's folder a prompt names, checked as the Files routes check a path (FolderAccess):
 * `..`, absolute paths and links leading out are refused (400, 403), a missing file is 404.
 */
export function mentionOf(folder: string, path: string, field: string): PromptMention {
  const file = new FolderAccess(folder).openFile(path, field);
  closeSync(file.fd);
  return { path: file.relativePath, sizeBytes: file.stats.size };
}

/**
 * The ACP block for a mentioned file, opened again through FolderAccess at the turn (a link swapped in
 * since it was sent is refused): its text where the agent takes embedded context and it is small text,
 * else a link to it. `file` is its real path, to allow the agent's read of it.
 */
export function mentionBlock(
  folder: string,
  mention: PromptMention,
  capabilities: acp.PromptCapabilities | undefined,
): { block: acp.ContentBlock; file: string } {
  const access = new FolderAccess(folder);
  const opened = access.openFile(mention.path, "mention");
  try {
    const file = join(access.root, opened.relativePath);
    const uri = pathToFileURL(file).href;
    if (capabilities?.embeddedContext && opened.stats.size <= EMBED_TEXT_MAX_BYTES) {
      const bytes = readAll(opened, EMBED_TEXT_MAX_BYTES);
      if (kindOf(bytes) === "text")
        return { block: { type: "resource", resource: { uri, mimeType: "text/plain", text: new TextDecoder().decode(bytes) } }, file };
    }
    return { block: { type: "resource_link", uri, name: basename(file), size: opened.stats.size }, file };
  } finally {
    closeSync(opened.fd);
  }
}

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import type { Attachment, PromptMention } from "../schemas/sessions.ts";
import type { UploadedFiles } from "../files/uploaded-files.ts";
import { EMBED_TEXT_MAX_BYTES, mentionBlock } from "./prompt-mentions.ts";

const isText = (mimeType: string) => mimeType.startsWith("text/") || /^application\/(json|xml|x-yaml|yaml|toml)$/.test(mimeType);

/**
 * The ACP prompt for a queued prompt: its text, then each attachment in the richest form the agent
 * takes. Images become image blocks and small text files embedded resources where the agent says it
 * accepts them; anything else is a link to the file (every ACP agent accepts links), which the agent
 * may then read through fs/read_text_file: `files` are the attachments' paths, to allow those reads.
 * Then each file of the session's `folder` the prompt mentions (prompt-mentions.ts).
 */
export function promptBlocks(
  text: string,
  attachments: Attachment[],
  capabilities: acp.PromptCapabilities | undefined,
  uploads: UploadedFiles,
  mentioned: { folder: string; mentions: PromptMention[] } = { folder: "", mentions: [] },
): { blocks: acp.ContentBlock[]; files: string[] } {
  const blocks: acp.ContentBlock[] = [{ type: "text", text }];
  const files: string[] = [];
  for (const attachment of attachments) {
    const path = uploads.pathOf(attachment.fileId);
    if (!path) throw new Error(`the attached file ${attachment.name} (${attachment.fileId}) is gone`);
    files.push(path);
    const uri = pathToFileURL(path).href;
    if (attachment.kind === "image" && capabilities?.image) {
      blocks.push({ type: "image", mimeType: attachment.mimeType, data: readFileSync(path).toString("base64"), uri });
    } else if (isText(attachment.mimeType) && capabilities?.embeddedContext && attachment.sizeBytes <= EMBED_TEXT_MAX_BYTES) {
      blocks.push({ type: "resource", resource: { uri, mimeType: attachment.mimeType, text: readFileSync(path, "utf8") } });
    } else {
      blocks.push({ type: "resource_link", uri, name: attachment.name, mimeType: attachment.mimeType, size: attachment.sizeBytes });
    }
  }
  for (const mention of mentioned.mentions) {
    const { block, file } = mentionBlock(mentioned.folder, mention, capabilities);
    blocks.push(block);
    files.push(file);
  }
  return { blocks, files };
}

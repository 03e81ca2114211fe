import { UploadedFile, UploadFileBody } from "../../schemas/sessions.ts";
import { MAX_UPLOAD_BYTES, type UploadedFiles } from "../../files/uploaded-files.ts";
import { defineRoute } from "../route.ts";

/** Base64 of the largest upload, plus room for the name and the JSON around it. */
const UPLOAD_BODY_LIMIT_BYTES = Math.ceil((MAX_UPLOAD_BYTES * 4) / 3) + 64 * 1024;

export function fileRoutes(files: UploadedFiles) {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/files",
      tag: "sessions",
      summary: "Upload a file to attach to prompts (base64 in JSON, at most 20 MiB)",
      description:
        "Returns the file's id for a prompt's `attachments`. Images (PNG, JPEG, GIF, WebP) reach agents that accept images as " +
        "images; other files, and images for agents that do not, are passed as a link to the file on this machine.",
      body: UploadFileBody,
      response: UploadedFile,
      successStatus: 201,
      bodyLimitBytes: UPLOAD_BODY_LIMIT_BYTES,
      handler: ({ body }) => files.upload(body.name, body.mimeType, body.contentBase64),
    }),
  ];
}

import { Type } from "@sinclair/typebox";
import type { FileLimits, FileRead, Preconditions } from "../../project-files/file-content.ts";
import type { ProjectFiles } from "../../project-files/project-files.ts";
import {
  FileEntry,
  FileEntryList,
  FileListQuery,
  FileMoved,
  FilePathQuery,
  FileSearchHitList,
  FileSearchQuery,
  FileWritten,
  FolderChoice,
  MoveFileBody,
} from "../../schemas/project-files.ts";
import { jsonAnswer } from "../compressed-json.ts";
import { readBodyBytes } from "../json-body.ts";
import { pageResponse } from "../paging.ts";
import { defineRoute } from "../route.ts";

const ProjectParams = Type.Object({ id: Type.String({ minLength: 1 }) });

/** The header that says whether a file's bytes are text (UTF-8 without NUL in the first 8,000 bytes) or binary. */
export const FILE_KIND_HEADER = "Atrium-File-Kind";

const WHERE =
  "The folder is the project's first location unless `locationId`, `worktreeId` or `sessionId` (the folder that session works in) names another. " +
  "Paths are relative to it: `..`, absolute paths and NUL bytes are 400; a path that resolves outside it after symbolic links (a link pointing out, " +
  "a linked parent folder, one swapped in meanwhile) is 403, and nothing is read or written.";
const REFUSED = { "403": "The path leads outside the folder (a symbolic link), or into `.git` for a change." };

function preconditions(request: Request): Preconditions {
  const ifMatch = request.headers.get("if-match");
  const ifNoneMatch = request.headers.get("if-none-match");
  return { ...(ifMatch === null ? {} : { ifMatch }), ...(ifNoneMatch === null ? {} : { ifNoneMatch }) };
}

/** A file's bytes as the answer: its type, its ETag, the range sent, text or binary; never run as a page by a browser. */
function contentResponse(file: FileRead): Response {
  const headers: Record<string, string> = {
    "content-type": file.contentType,
    etag: file.etag,
    "last-modified": new Date(file.mtime).toUTCString(),
    "accept-ranges": "bytes",
    "cache-control": "private, no-cache",
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'",
    [FILE_KIND_HEADER]: file.kind,
  };
  if (file.range) headers["content-range"] = `bytes ${file.range.start}-${file.range.end}/${file.size}`;
  return new Response(file.bytes, { status: file.range ? 206 : 200, headers });
}

export function projectFileRoutes(files: ProjectFiles, limits: FileLimits) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/files",
      tag: "files",
      summary: "A folder's entries: folders first, then files, by name",
      description:
        `${WHERE} In a git working tree, what .gitignore hides (and \`.git\`) is left out unless \`ignored=true\`, and each entry has its ` +
        '`gitStatus`. Paged: `limit` (50 by default, at most 200); the next page is the `Link: <…>; rel="next"` header.',
      params: ProjectParams,
      query: FileListQuery,
      response: FileEntryList,
      paged: true,
      moreErrors: REFUSED,
      handler: async ({ params, query, request }) => pageResponse(await files.list(params.id, query), request),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/files/search",
      tag: "files",
      summary: "Find files by name (fuzzy, best first) or lines by content (any case)",
      description:
        `${WHERE} By name, over a list of the folder's files kept in memory (\`git ls-files\`: tracked and untracked, not ignored; a walk ` +
        "elsewhere). By content with ripgrep where it is on the server's PATH, else `git grep`, else a built-in scan of text files up to 1 MiB; " +
        "at most 5,000 lines are found. Paged like the lists.",
      params: ProjectParams,
      query: FileSearchQuery,
      response: FileSearchHitList,
      paged: true,
      handler: async ({ params, query, request }) => pageResponse(await files.search(params.id, query), request),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/files/content",
      tag: "files",
      summary: "A file's bytes, with its type by extension, a strong ETag of the content, and Range",
      description:
        `${WHERE} \`${FILE_KIND_HEADER}: text | binary\` says which it is. A single \`Range: bytes=…\` is answered 206 (\`If-Range\` with ` +
        `the ETag); HEAD gives the headers alone. Files over ${limits.maxReadBytes} bytes are 413.`,
      params: ProjectParams,
      query: FilePathQuery,
      response: Type.String({ format: "binary" }),
      responseType: "*/*",
      moreSuccesses: { "206": "The range asked for (`Content-Range`)." },
      moreErrors: { ...REFUSED, "413": "The file is over the read limit.", "416": "The range is not within the file." },
      handler: ({ params, query, request }) =>
        contentResponse(
          files.read(params.id, query, { range: request.headers.get("range") ?? undefined, ifRange: request.headers.get("if-range") ?? undefined }),
        ),
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/projects/:id/files/content",
      tag: "files",
      summary: "Write a file: `If-Match: <ETag>` replaces the file read, `If-None-Match: *` creates one",
      description:
        `${WHERE} The body is the file's bytes (at most ${limits.maxWriteBytes}). Written whole to a new file beside it, then renamed over ` +
        "it (a reader sees the old file or the new, never part), keeping its mode. 412 when the file changed since it was read (or exists, " +
        "for a create); 428 with neither header. A link inside the folder is followed to the file it names. `.git` is never written (403).",
      params: ProjectParams,
      query: FilePathQuery,
      response: FileWritten,
      rawBody: true,
      rawBodyType: "application/octet-stream",
      moreSuccesses: { "201": "Created: there was no file at the path." },
      moreErrors: { ...REFUSED, "412": "The file is not what the condition expects.", "428": "Neither If-Match nor If-None-Match was sent." },
      handler: async ({ params, query, request }) => {
        const bytes = await readBodyBytes(request, limits.maxWriteBytes);
        const written = files.write(params.id, query, bytes, preconditions(request));
        return jsonAnswer(written, request, written.created ? 201 : 200, { etag: written.etag });
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/projects/:id/files/content",
      tag: "files",
      summary: "Delete a file (a link is removed itself) when it is still what `If-Match` names",
      description: `${WHERE} \`If-Match: *\` deletes whatever file is there. A folder is 400. Answers the entry as it was.`,
      params: ProjectParams,
      query: FilePathQuery,
      response: FileEntry,
      moreErrors: { ...REFUSED, "412": "The file changed since it was read.", "428": "No If-Match was sent." },
      handler: ({ params, query, request }) => files.remove(params.id, query, preconditions(request)),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/projects/:id/files/move",
      tag: "files",
      summary: "Move or rename a file, folder or link inside the folder",
      description: `${WHERE} \`to\` must not exist (409) and its folder must. Neither may be in \`.git\`.`,
      params: ProjectParams,
      query: FolderChoice,
      body: MoveFileBody,
      response: FileMoved,
      moreErrors: REFUSED,
      handler: ({ params, query, body }) => files.move(params.id, query, body.from, body.to),
    }),
  ];
}

import { Type, type Static } from "@sinclair/typebox";
import { Nullable, PageQuery, Timestamp } from "./common.ts";

/** How a path is named: relative to the folder, `/`-separated; `..`, absolute paths and NUL bytes are refused (400). */
const RelativePath = (description: string) => Type.String({ maxLength: 4096, description });

/** Which folder of the project: its first location unless one of these names another (at most one). */
export const FolderChoice = Type.Object({
  locationId: Type.Optional(Type.String({ minLength: 1, description: "A location of the project (its first by default)." })),
  worktreeId: Type.Optional(Type.String({ minLength: 1, description: "One of the project's worktrees." })),
  sessionId: Type.Optional(
    Type.String({ minLength: 1, description: "A session of the project: the folder it works in (its worktree, or the project's folder)." }),
  ),
});
export type FolderChoice = Static<typeof FolderChoice>;

export const GitFileStatus = Type.Union(
  [
    Type.Literal("modified"),
    Type.Literal("added"),
    Type.Literal("deleted"),
    Type.Literal("renamed"),
    Type.Literal("untracked"),
    Type.Literal("conflicted"),
    Type.Literal("ignored"),
  ],
  { description: "Against HEAD, staged and unstaged together; a folder is `modified` when something under it changed." },
);

export const FileEntry = Type.Object(
  {
    name: Type.String(),
    path: Type.String({ description: "Relative to the folder." }),
    type: Type.Union([Type.Literal("file"), Type.Literal("dir"), Type.Literal("symlink")], { description: "A symbolic link is not followed." }),
    size: Type.Integer({ minimum: 0, description: "In bytes (a link: the length of what it points at)." }),
    mtime: Timestamp,
    gitStatus: Nullable(GitFileStatus),
  },
  { $id: "FileEntry" },
);
export type FileEntry = Static<typeof FileEntry>;

export const FileEntryList = Type.Array(FileEntry);

export const FileListQuery = Type.Object({
  ...FolderChoice.properties,
  path: Type.Optional(RelativePath("The folder to list, relative to the root; the root itself by default.")),
  ignored: Type.Optional(Type.Boolean({ description: "Also list what .gitignore hides (and `.git` itself)." })),
  ...PageQuery.properties,
});
export type FileListQuery = Static<typeof FileListQuery>;

export const FilePathQuery = Type.Object({
  ...FolderChoice.properties,
  path: Type.String({ minLength: 1, maxLength: 4096, description: "The file, relative to the folder." }),
});
export type FilePathQuery = Static<typeof FilePathQuery>;

export const FileWritten = Type.Object(
  {
    entry: FileEntry,
    etag: Type.String({ description: "The new content's ETag (also the `ETag` header): the next write's `If-Match`." }),
    created: Type.Boolean({ description: "There was no file at the path before." }),
  },
  { $id: "FileWritten" },
);
export type FileWritten = Static<typeof FileWritten>;

export const MoveFileBody = Type.Object({
  from: Type.String({ minLength: 1, maxLength: 4096, description: "What to move (a file, folder or link), relative to the folder." }),
  to: Type.String({ minLength: 1, maxLength: 4096, description: "Its new path; must not exist; its folder must." }),
});

export const FileMoved = Type.Object({ from: FileEntry, to: FileEntry }, { $id: "FileMoved" });
export type FileMoved = Static<typeof FileMoved>;

export const FileSearchQuery = Type.Object({
  ...FolderChoice.properties,
  q: Type.String({ minLength: 1, maxLength: 200, description: "The text to find." }),
  mode: Type.Optional(
    Type.Union([Type.Literal("name"), Type.Literal("content")], {
      description: "`name` (default): files whose path holds the letters of `q` in order, best first; `content`: lines holding `q` (ignoring case).",
    }),
  ),
  ...PageQuery.properties,
});
export type FileSearchQuery = Static<typeof FileSearchQuery>;

export const FileSearchHit = Type.Object(
  {
    path: Type.String({ description: "The file, relative to the folder." }),
    line: Nullable(Type.Integer({ minimum: 1, description: "The matching line's number (content search); null for a name." })),
    snippet: Nullable(Type.String({ description: "The matching line, cut to 200 characters around the match (content search)." })),
  },
  { $id: "FileSearchHit" },
);
export type FileSearchHit = Static<typeof FileSearchHit>;

export const FileSearchHitList = Type.Array(FileSearchHit);

/** The events the project files module publishes. */
export const ProjectFileEvents = {
  /** A file or folder was written, created, deleted or moved through the interface: a client showing the folder reads it again. */
  "files.changed": Type.Object({
    projectId: Type.String(),
    folderPath: Type.String({ description: "The root folder (its real path) the paths are relative to." }),
    change: Type.Union([Type.Literal("created"), Type.Literal("modified"), Type.Literal("deleted"), Type.Literal("moved")]),
    path: Type.String({ description: "What changed (for a move, its new path)." }),
    fromPath: Nullable(Type.String({ description: "Where a moved entry was; null otherwise." })),
  }),
};

import { Type, type Static } from "@sinclair/typebox";

export const ChangedFile = Type.Object(
  {
    path: Type.String({ description: "Relative to the repository's root." }),
    oldPath: Type.Union([Type.String(), Type.Null()], { description: "Where a renamed file was." }),
    status: Type.Union(
      [
        Type.Literal("added"),
        Type.Literal("modified"),
        Type.Literal("deleted"),
        Type.Literal("renamed"),
        Type.Literal("typechange"),
        Type.Literal("conflicted"),
        Type.Literal("untracked"),
      ],
      { description: "Against HEAD, staged and unstaged together; `untracked`: new and not ignored." },
    ),
    added: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "Lines added; null for a binary file or one over the size limit." }),
    removed: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    binary: Type.Boolean(),
    staged: Type.Union([Type.Literal("none"), Type.Literal("partly"), Type.Literal("all")], {
      description: "How much of the change is in the index: `all`, `partly` (the working tree changes it further) or `none`.",
    }),
  },
  { $id: "ChangedFile" },
);
export type ChangedFile = Static<typeof ChangedFile>;

export const ChangeList = Type.Object(
  {
    folderPath: Type.String(),
    repositoryRoot: Type.String(),
    branch: Type.Union([Type.String(), Type.Null()], { description: "null on a detached HEAD." }),
    head: Type.Union([Type.String(), Type.Null()], { description: "The commit compared against; null before the first commit (everything is added)." }),
    files: Type.Array(ChangedFile, { description: "By path." }),
    next: Type.Union([Type.String(), Type.Null()], { description: "The `cursor` of the next page; null on the last." }),
  },
  { $id: "ChangeList" },
);
export type ChangeList = Static<typeof ChangeList>;

export const FileDiff = Type.Object(
  {
    ...ChangedFile.properties,
    tooLarge: Type.Boolean({ description: "Over the size limit (1 MiB) in the working tree or at HEAD: named, not sent." }),
    diff: Type.Union([Type.String(), Type.Null()], { description: "A unified diff as `git diff` writes it; null for a binary or an oversized file." }),
    stagedHunks: Type.Array(Type.String(), {
      description: "The `@@ -a,b +c,d @@` names of the diff's hunks that are wholly staged (of a modified file's first 100 hunks).",
    }),
  },
  { $id: "FileDiff" },
);
export type FileDiff = Static<typeof FileDiff>;

export const ChangesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: "Files per page (200 by default)." })),
  cursor: Type.Optional(Type.String({ minLength: 1 })),
});

export const DiffQuery = Type.Object({
  path: Type.String({ minLength: 1, description: "A path as the change list names it." }),
});

import { Type, type Static } from "@sinclair/typebox";

export const HunkName = Type.Object(
  {
    path: Type.String({ minLength: 1, description: "A modified file as the change list names it." }),
    header: Type.String({
      minLength: 1,
      description: "The hunk's `@@ -a,b +c,d @@` line as the file's diff (`…/changes/diff`) writes it; what follows the second `@@` is ignored.",
    }),
  },
  { $id: "HunkName" },
);
export type HunkName = Static<typeof HunkName>;

export const GitSelection = Type.Object(
  {
    paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: "Whole files, as the change list names them." })),
    hunks: Type.Optional(Type.Array(HunkName, { maxItems: 1000, description: "Parts of modified files." })),
  },
  { $id: "GitSelection" },
);
export type GitSelection = Static<typeof GitSelection>;

export const Discard = Type.Object(
  {
    id: Type.String({ description: "What `…/git/discard/undo` takes to bring the discarded changes back." }),
    ref: Type.String({ description: "The ref (`refs/atrium/discarded/<id>`) whose commit keeps the files as they were, index and working tree." }),
    paths: Type.Array(Type.String(), { description: "The files the discard touched, by path." }),
  },
  { $id: "Discard" },
);
export type Discard = Static<typeof Discard>;

export const DiscardUndoBody = Type.Object({ id: Type.String({ minLength: 1, description: "A discard's `id`." }) });

export const CommitBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 100_000, description: "The commit message, as `git commit -F -` reads it." }),
  amend: Type.Optional(Type.Boolean({ description: "Replace HEAD's commit (`--amend`)." })),
  noVerify: Type.Optional(Type.Boolean({ description: "Skip the pre-commit and commit-msg hooks (`--no-verify`)." })),
  allowDetached: Type.Optional(Type.Boolean({ description: "Commit on a detached HEAD (refused otherwise: the commit would belong to no branch)." })),
});
export type CommitBody = Static<typeof CommitBody>;

export const Commit = Type.Object(
  {
    sha: Type.String({ description: "The new commit." }),
    branch: Type.Union([Type.String(), Type.Null()], { description: "The branch it is on; null on a detached HEAD." }),
    output: Type.String({ description: "What git and the hooks wrote (stdout, then stderr), cut at 64 KiB." }),
  },
  { $id: "Commit" },
);
export type Commit = Static<typeof Commit>;

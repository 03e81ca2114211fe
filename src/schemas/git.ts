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

import { MergeBody, MergeResult } from "../../schemas/git.ts";
import type { SessionWorktreeMerge } from "../../sessions/session-worktree-merge.ts";
import { defineRoute } from "../route.ts";
import { SessionParams } from "./session-routes.ts";

/** Landing a session's worktree branch on its base branch. */
export function worktreeMergeRoutes(merges: SessionWorktreeMerge) {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/worktree/merge",
      tag: "sessions",
      summary: "Land the session's worktree branch on its base branch",
      description:
        "By `merge` (a merge commit), `squash` (one commit) or `rebase` (its commits replayed on top), worked out apart from every working tree. " +
        "`into` is the worktree's base branch (`main` of `origin/main`) unless named, and must be a local branch (404 otherwise). On a conflict " +
        "`into` is untouched and the error names the conflicting files (409). Where `into` is checked out it is fast-forwarded there " +
        "(409 when that folder's changes are in the way). `removeWorktree` removes the worktree and its branch once landed. " +
        "Only what is committed on the session's branch lands; 409 for a session without a worktree.",
      params: SessionParams,
      body: MergeBody,
      response: MergeResult,
      moreErrors: { "409": "A conflict (the files named), no worktree, changes in the way, or git refused (its words in `error`)." },
      handler: ({ params, body }) => merges.merge(params.id, body),
    }),
  ];
}

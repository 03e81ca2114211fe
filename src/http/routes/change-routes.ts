import { Type } from "@sinclair/typebox";
import { ChangeList, ChangesQuery, DiffQuery, FileDiff } from "../../schemas/changes.ts";
import type { ProjectChanges } from "../../projects/project-changes.ts";
import type { SessionChanges } from "../../sessions/session-changes.ts";
import { defineRoute } from "../route.ts";
import { LocationParams } from "./project-routes.ts";
import { SessionParams } from "./session-routes.ts";

const NOT_A_REPOSITORY = { "409": "The folder is not a git repository, or it is gone." };
const LIST_DESCRIPTION =
  "Changes against HEAD, staged and unstaged together, untracked files included (ignored ones not), by path; " +
  "`limit` files a page (200 by default) and `next` as the following page's `cursor`. A binary file, or one over 1 MiB, is named without line counts.";
const DIFF_DESCRIPTION =
  "One changed file's unified diff, as `git diff` writes it. A binary file, or one over 1 MiB in the working tree or at HEAD, " +
  "is named with `diff: null`. 404 when the path has no change.";

export const WorktreeParams = Type.Object({ id: Type.String({ minLength: 1 }), worktreeId: Type.String({ minLength: 1 }) });

/** The working-tree changes of a project's locations and worktrees (read-only, real git). */
export function projectChangeRoutes(changes: ProjectChanges) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/locations/:locationId/changes",
      tag: "projects",
      summary: "The location's working-tree changes",
      description: LIST_DESCRIPTION,
      params: LocationParams,
      query: ChangesQuery,
      response: ChangeList,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.ofLocation(params.id, params.locationId, query),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/locations/:locationId/changes/diff",
      tag: "projects",
      summary: "One changed file's diff in the location",
      description: DIFF_DESCRIPTION,
      params: LocationParams,
      query: DiffQuery,
      response: FileDiff,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.diffOfLocation(params.id, params.locationId, query.path),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/worktrees/:worktreeId/changes",
      tag: "projects",
      summary: "The worktree's changes",
      description: LIST_DESCRIPTION,
      params: WorktreeParams,
      query: ChangesQuery,
      response: ChangeList,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.ofWorktree(params.id, params.worktreeId, query),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/worktrees/:worktreeId/changes/diff",
      tag: "projects",
      summary: "One changed file's diff in the worktree",
      description: DIFF_DESCRIPTION,
      params: WorktreeParams,
      query: DiffQuery,
      response: FileDiff,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.diffOfWorktree(params.id, params.worktreeId, query.path),
    }),
  ];
}

/** What a session's agent changed in its folder (its worktree or the project's folder). */
export function sessionChangeRoutes(changes: SessionChanges) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/changes",
      tag: "sessions",
      summary: "The working-tree changes in the session's folder",
      description: LIST_DESCRIPTION,
      params: SessionParams,
      query: ChangesQuery,
      response: ChangeList,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.of(params.id, query),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/changes/diff",
      tag: "sessions",
      summary: "One changed file's diff in the session's folder",
      description: DIFF_DESCRIPTION,
      params: SessionParams,
      query: DiffQuery,
      response: FileDiff,
      moreErrors: NOT_A_REPOSITORY,
      handler: ({ params, query }) => changes.diff(params.id, query.path),
    }),
  ];
}

import { Type } from "@sinclair/typebox";
import {
  AddLocationBody,
  CloneProjectBody,
  CreateProjectBody,
  Project,
  ProjectList,
  ProjectListQuery,
  UpdateProjectBody,
  Worktree,
} from "../../schemas/projects.ts";
import type { ProjectService } from "../../projects/project-service.ts";
import type { WorktreeService } from "../../projects/worktree-service.ts";
import { pageResponse } from "../paging.ts";
import { DEFAULT_PAGE_SIZE } from "../../store/page-cursor.ts";
import { defineRoute } from "../route.ts";

const ProjectParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export const LocationParams = Type.Object({ id: Type.String({ minLength: 1 }), locationId: Type.String({ minLength: 1 }) });

export function projectRoutes(projects: ProjectService, worktrees: WorktreeService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/projects",
      tag: "projects",
      summary: "Projects, oldest first, with their locations; `q` finds them by name",
      description: 'Paged: `limit` (50 by default, at most 200); the next page is the `Link: <…>; rel="next"` header.',
      query: ProjectListQuery,
      response: ProjectList,
      paged: true,
      handler: ({ query, request }) => pageResponse(projects.list(query.limit ?? DEFAULT_PAGE_SIZE, query.cursor, query.q), request),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/projects",
      tag: "projects",
      summary: "Make a project of an existing folder, or a scratch project with a fresh folder",
      description:
        "`folderPath` is required unless `isScratch` is true. Whether the folder is a git repository, and its " +
        "origin remote, are detected. A folder or repository that already is a project is 409.",
      body: CreateProjectBody,
      response: Project,
      successStatus: 201,
      handler: ({ body }) => projects.create(body),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/projects/from-git",
      tag: "projects",
      summary: "Clone a repository into the data dir and make it a project",
      description:
        "Accepts https, ssh, git and file URLs, `user@host:path` and absolute paths. A repository already present " +
        "(same repoKey) is 409. Long clones report `project.clone.progress` events. A failed clone leaves nothing.",
      body: CloneProjectBody,
      response: Project,
      successStatus: 201,
      handler: ({ body }) => projects.cloneFromGit(body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id",
      tag: "projects",
      summary: "One project",
      params: ProjectParams,
      response: Project,
      handler: ({ params }) => projects.get(params.id),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/projects/:id",
      tag: "projects",
      summary: "Change the name, worktree base or default run location; null resets a field",
      params: ProjectParams,
      body: UpdateProjectBody,
      response: Project,
      handler: ({ params, body }) => projects.update(params.id, body),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/projects/:id",
      tag: "projects",
      summary: "Delete a project and the folders the server made for it; returns the project as it was",
      description: "Folders the user brought are never removed. The project's worktrees are removed.",
      params: ProjectParams,
      response: Project,
      handler: ({ params }) => projects.delete(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/projects/:id/locations",
      tag: "projects",
      summary: "Add another folder (a second checkout) as a location of the project",
      params: ProjectParams,
      body: AddLocationBody,
      response: Project,
      successStatus: 201,
      handler: ({ params, body }) => projects.addLocation(params.id, body.folderPath),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/projects/:id/locations/:locationId",
      tag: "projects",
      summary: "Forget a location (the folder stays); the last one cannot go",
      params: LocationParams,
      response: Project,
      handler: ({ params }) => projects.removeLocation(params.id, params.locationId),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/projects/:id/worktrees",
      tag: "projects",
      summary: "The git worktrees the server made for the project's sessions",
      params: ProjectParams,
      response: Type.Array(Worktree),
      handler: ({ params }) => worktrees.list(params.id),
    }),
  ];
}

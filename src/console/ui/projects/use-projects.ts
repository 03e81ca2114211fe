import type { Project } from "../../../schemas/projects.ts";
import { readPages } from "../shared/api.ts";
import { type LiveListSource, useLiveList } from "../shared/use-live-list.ts";

const PROJECTS: LiveListSource<Project> = {
  kinds: "project.created,project.updated,project.deleted",
  read: (onPage) => readPages<Project>("/v1/projects", onPage),
  apply(event, { keep, forget }) {
    const { project } = event.payload as { project: Project };
    if (event.kind === "project.deleted") forget(project.id);
    else keep(project);
  },
  // The server lists projects oldest first; RFC 3339 times with milliseconds sort as strings.
  order: (list) => list.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)),
};

/**
 * The server's projects, followed live. `keep` and `forget` apply the page's own changes at once,
 * without waiting for their events (which then change nothing).
 */
export const useProjects = () => useLiveList(PROJECTS);

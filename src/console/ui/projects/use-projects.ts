import type { Project } from "../../../schemas/projects.ts";
import { holdsText } from "../shared/search.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";
import { applyProjectEvent, PROJECT_KINDS } from "./project-events.ts";

/** The server lists projects oldest first; RFC 3339 times with milliseconds sort as strings. */
const oldestFirst = (a: Project, b: Project) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

const PROJECTS: ListSource<Project> = {
  kinds: PROJECT_KINDS,
  firstPage: (search) => `/v1/projects${search ? `?q=${encodeURIComponent(search)}` : ""}`,
  apply: applyProjectEvent,
  compare: oldestFirst,
  matches: (project, search) => holdsText([project.name], search),
};

/**
 * The server's projects, a page at a time as the user scrolls or searches, followed live. `keep` and
 * `forget` apply the page's own changes at once, without waiting for their events (which then change
 * nothing).
 */
export const useProjects = (search: string) => useLiveList(PROJECTS, search);

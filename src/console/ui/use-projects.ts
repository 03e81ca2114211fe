import { useEffect, useRef, useState } from "preact/hooks";
import type { Project } from "../../schemas/projects.ts";
import { api, failureText, readPages } from "./api.ts";
import { followEvents } from "./event-stream.ts";

/** The server lists projects oldest first; RFC 3339 times with milliseconds sort as strings. */
const oldestFirst = (list: Project[]) => list.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));

const withProject = (list: Project[], project: Project) =>
  list.some((listed) => listed.id === project.id) ? list.map((listed) => (listed.id === project.id ? project : listed)) : oldestFirst([...list, project]);

/**
 * The server's projects, followed live. `keep` and `forget` apply the page's own changes at once,
 * without waiting for their events (which then change nothing).
 */
export function useProjects() {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A page read before a delete may still list the project after its event has removed it.
  const deleted = useRef(new Set<string>());

  const keep = (project: Project) => {
    deleted.current.delete(project.id);
    setProjects((current) => withProject(current ?? [], project));
  };
  const forget = (projectId: string) => {
    deleted.current.add(projectId);
    setProjects((current) => current?.filter((listed) => listed.id !== projectId) ?? current);
  };

  useEffect(() => {
    let stopEvents = () => {};
    let stopped = false;
    const load = async () => {
      // Following from the cursor before reading the list: a change made in between is not lost.
      const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
      if (stopped) return;
      stopEvents = followEvents(`kind=project.created,project.updated,project.deleted&after=${cursor}`, (event) => {
        const { project } = event.payload as { project: Project };
        if (event.kind === "project.deleted") forget(project.id);
        else keep(project);
      });
      await readPages<Project>("/v1/projects", (page) => {
        // A project an event already brought stays as the event left it: a later change comes as an event too.
        const fresh = (list: Project[]) => page.filter((project) => !deleted.current.has(project.id) && !list.some((listed) => listed.id === project.id));
        setProjects((current) => oldestFirst([...(current ?? []), ...fresh(current ?? [])]));
      });
    };
    load().catch((failure) => setError(failureText(failure)));
    return () => {
      stopped = true;
      stopEvents();
    };
  }, []);

  return { projects, error, keep, forget };
}

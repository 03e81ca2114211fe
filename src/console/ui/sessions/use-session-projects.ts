import { useRef, useState } from "preact/hooks";
import type { Project } from "../../../schemas/projects.ts";
import { api, readPage, readPages } from "../shared/api.ts";
import type { StreamedEvent } from "../shared/event-stream.ts";
import { applyProjectEvent } from "../projects/project-events.ts";

/** Projects named on one page: most people have fewer, so their names come with the first sessions. */
const FIRST_PROJECTS = "/v1/projects?limit=200";

/** The projects the session list names, read as far as it needs them. */
export interface SessionProjects {
  byId: ReadonlyMap<string, Project>;
  /** The first page of projects has been read (or failed to be). */
  firstRead: boolean;
  /** Applies a project event (from the session list's stream: one stream holds one of the browser's six connections). */
  apply(event: StreamedEvent): void;
  /** The first page of projects, read with the first page of sessions; resolves to the event cursor it was read at. */
  readFirst(): Promise<number>;
  /** Reads, one by one, the projects of shown sessions that the first page did not hold. */
  need(projectIds: Iterable<string>): void;
  /** Reads every project (the new-session form offers them all). */
  readAll(): Promise<void>;
}

export function useSessionProjects(): SessionProjects {
  const [byId, setById] = useState<ReadonlyMap<string, Project>>(new Map());
  const [firstRead, setFirstRead] = useState(false);
  // Past the first page: projects exist that were not read (null: all were).
  const more = useRef<string | null>(null);
  const asked = useRef(new Set<string>());
  const keep = (projects: Project[]) => setById((known) => new Map([...known, ...projects.map((project) => [project.id, project] as const)]));
  const forget = (id: string) =>
    setById((known) => {
      const next = new Map(known);
      next.delete(id);
      return next;
    });
  const apply = (event: StreamedEvent) => applyProjectEvent(event, { keep: (project) => keep([project]), forget });
  return {
    byId,
    firstRead,
    apply,
    async readFirst() {
      try {
        const page = await readPage<Project>(FIRST_PROJECTS);
        more.current = page.next;
        keep(page.items);
        return page.eventCursor;
      } finally {
        setFirstRead(true);
      }
    },
    need(projectIds) {
      if (more.current === null) return;
      for (const id of projectIds) {
        if (byId.has(id) || asked.current.has(id)) continue;
        asked.current.add(id);
        api<Project>("GET", `/v1/projects/${encodeURIComponent(id)}`).then(
          (project) => keep([project]),
          () => {},
        );
      }
    },
    async readAll() {
      const rest = more.current;
      if (rest === null) return;
      more.current = null;
      await readPages<Project>(rest, keep);
    },
  };
}

import { memo } from "preact/compat";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Project } from "../../../schemas/projects.ts";
import type { Session } from "../../../schemas/sessions.ts";
import { api, failureText, readPages } from "../shared/api.ts";
import { followEventsByFrame, type StreamedEvent } from "../shared/event-stream.ts";
import { NewSessionForm } from "./new-session-form.tsx";
import { sessionHref } from "../shell/router.ts";
import { STANDING_LABELS, standingOf } from "./session-state.ts";
import { Alert } from "../shared/use-action.tsx";

type ById<T> = ReadonlyMap<string, T>;

interface Lists {
  sessions: ById<Session>;
  projects: ById<Project>;
}

const withAll = <T extends { id: string }>(byId: ById<T>, items: T[]): ById<T> => new Map([...byId, ...items.map((item) => [item.id, item] as const)]);

/** The lists after a batch of events; a kind the page does not show leaves them as they are. */
function applyListEvents({ sessions, projects }: Lists, events: StreamedEvent[]): Lists {
  const nextSessions = new Map(sessions);
  const nextProjects = new Map(projects);
  for (const event of events) {
    if (event.kind === "session.created" || event.kind === "session.updated") {
      const { session } = event.payload as { session: Session };
      nextSessions.set(session.id, session);
    } else if (event.kind === "session.deleted") nextSessions.delete((event.payload as { sessionId: string }).sessionId);
    else if (event.kind === "project.created" || event.kind === "project.updated") {
      const { project } = event.payload as { project: Project };
      nextProjects.set(project.id, project);
    } else if (event.kind === "project.deleted") nextProjects.delete((event.payload as { project: Project }).project.id);
  }
  return { sessions: nextSessions, projects: nextProjects };
}

interface ProjectGroup {
  project: Project | undefined;
  projectId: string;
  sessions: Session[];
}

/** Sessions by project, the project with the latest activity first, and within it the latest session first. */
function groupByProject({ sessions, projects }: Lists): ProjectGroup[] {
  const groups = new Map<string, ProjectGroup>();
  const newestFirst = [...sessions.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  for (const session of newestFirst) {
    let group = groups.get(session.projectId);
    if (!group) {
      group = { project: projects.get(session.projectId), projectId: session.projectId, sessions: [] };
      groups.set(session.projectId, group);
    }
    group.sessions.push(session);
  }
  return [...groups.values()];
}

/** A row, drawn again only when its session changed: a new page or event leaves the other rows as they are. */
const SessionRow = memo(function SessionRow({ session, harnessName }: { session: Session; harnessName: string }) {
  const standing = standingOf(session);
  return (
    <li>
      <a class="session-row" href={sessionHref(session.id)} data-session={session.id} data-standing={standing}>
        <span class="session-title">{session.title}</span>
        <span class="session-badges">
          <span class={`standing ${standing}`}>{STANDING_LABELS[standing]}</span>
          {session.unreadCount > 0 && <span class={session.hasUnreadError ? "unread has-error" : "unread"}>{session.unreadCount} unread</span>}
        </span>
        <span class="session-meta quiet">
          {harnessName} · {new Date(session.updatedAt).toLocaleString()}
        </span>
      </a>
    </li>
  );
});

/** Every session, grouped by project, with its live standing and unread marker. */
export function SessionsPage() {
  const [lists, setLists] = useState<Lists>({ sessions: new Map(), projects: new Map() });
  const [harnesses, setHarnesses] = useState<Harness[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // One stream for sessions and projects: a stream holds one of the browser's six connections to the server.
  useEffect(() => {
    let stop = () => {};
    let stopped = false;
    const load = async () => {
      // Events after this cursor are replayed over what the lists show, so nothing between the two is lost.
      const { cursor } = await api<{ cursor: number }>("GET", "/v1/events/cursor");
      // The first page is shown as soon as it comes; the others join it.
      await Promise.all([
        readPages<Session>("/v1/sessions?limit=200", (page) => {
          setLists((current) => ({ ...current, sessions: withAll(current.sessions, page) }));
          setLoaded(true);
        }),
        readPages<Project>("/v1/projects?limit=200", (page) => setLists((current) => ({ ...current, projects: withAll(current.projects, page) }))),
        api<Harness[]>("GET", "/v1/harnesses").then(setHarnesses),
      ]);
      if (stopped) return;
      stop = followEventsByFrame(
        `kind=session.created,session.updated,session.deleted,project.created,project.updated,project.deleted&after=${cursor}`,
        (events) => setLists((current) => applyListEvents(current, events)),
      );
    };
    load().catch((failure) => setError(failureText(failure)));
    return () => {
      stopped = true;
      stop();
    };
  }, []);

  const groups = useMemo(() => groupByProject(lists), [lists]);
  const harnessNames = useMemo(() => new Map(harnesses.map((harness) => [harness.id, harness.name])), [harnesses]);

  return (
    <section>
      <header class="page-header">
        <h2>Sessions</h2>
        {harnesses.length > 0 && (
          <button type="button" aria-expanded={starting} onClick={() => setStarting(!starting)}>
            {starting ? "Close" : "New session"}
          </button>
        )}
      </header>
      <Alert error={error} />
      {starting && <NewSessionForm projects={[...lists.projects.values()]} harnesses={harnesses} />}
      {!loaded ? (
        <p class="quiet">Loading…</p>
      ) : groups.length === 0 ? (
        <p class="quiet">No sessions yet.</p>
      ) : (
        groups.map((group) => (
          <section class="project-group" key={group.projectId} aria-label={group.project?.name ?? group.projectId}>
            <h3>{group.project?.name ?? group.projectId}</h3>
            <ul class="session-list">
              {group.sessions.map((session) => (
                <SessionRow key={session.id} session={session} harnessName={harnessNames.get(session.harnessId) ?? session.harnessId} />
              ))}
            </ul>
          </section>
        ))
      )}
    </section>
  );
}

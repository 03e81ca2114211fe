import { memo } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Session, SessionListItem } from "../../../schemas/sessions.ts";
import { api } from "../shared/api.ts";
import { failureText } from "../shared/failure-text.ts";
import { readRetrying } from "../shared/retrying-read.ts";
import { MoreOnScroll } from "../shared/more-on-scroll.tsx";
import { SearchField } from "../shared/search-field.tsx";
import { holdsText } from "../shared/search.ts";
import { type ListSource, useLiveList } from "../shared/use-live-list.ts";
import { PROJECT_KINDS } from "../projects/project-events.ts";
import { type SessionProjects, useSessionProjects } from "./use-session-projects.ts";
import { NewSessionForm } from "./new-session-form.tsx";
import { sessionHref } from "../shell/router.ts";
import { STANDING_LABELS, standingOf } from "./session-state.ts";
import { Alert } from "../shared/use-action.tsx";
import { PageHeading } from "../shell/page-heading.tsx";

/** Sessions on the first page: a phone's screen a few times over, and the server answers it in well under a millisecond. */
const FIRST_SESSIONS = 50;

/** One formatter for every row: toLocaleString with options makes a formatter per call, which costs far more than the formatting. */
const LAST_ACTIVITY = new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "short" });

/** Newest activity first, as the server lists them (ties by id, descending). */
const newestFirst = (a: SessionListItem, b: SessionListItem) =>
  a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/** The sessions list, a page at a time, with the project events its rows' names follow. */
function sessionSource(projects: { current: SessionProjects }): ListSource<SessionListItem> {
  return {
    kinds: ["session.created", "session.updated", "session.deleted", ...PROJECT_KINDS],
    firstPage: (search) => `/v1/sessions?limit=${FIRST_SESSIONS}${search ? `&q=${encodeURIComponent(search)}` : ""}`,
    apply(event, { keep, forget }) {
      if (event.kind.startsWith("project.")) projects.current.apply(event);
      else if (event.kind === "session.deleted") forget((event.payload as { sessionId: string }).sessionId);
      else keep((event.payload as { session: Session }).session);
    },
    compare: newestFirst,
    matches: (session, search) => holdsText([session.title, projects.current.byId.get(session.projectId)?.name ?? ""], search),
    readAlso: () => projects.current.readFirst(),
  };
}

/** A row, drawn again only when its session changed: a new page or event leaves the other rows as they are. */
const SessionRow = memo(function SessionRow({ session, projectName, harnessName }: { session: SessionListItem; projectName: string; harnessName: string }) {
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
          <span class="session-project">{projectName}</span> · {harnessName} · {LAST_ACTIVITY.format(new Date(session.updatedAt))}
        </span>
      </a>
    </li>
  );
});

/** The sessions, latest activity first, read as far as the user scrolls or searches, with their live standing and unread marker. */
export function SessionsPage() {
  const projects = useSessionProjects();
  const projectsNow = useRef(projects);
  projectsNow.current = projects;
  const [source] = useState(() => sessionSource(projectsNow));
  const [search, setSearch] = useState("");
  const sessions = useLiveList(source, search);
  const [harnesses, setHarnesses] = useState<Harness[] | null>(null);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const life = new AbortController();
    readRetrying(
      () => api<Harness[]>("GET", "/v1/harnesses"),
      life.signal,
      (failure) => setError(failureText(failure)),
    ).then(
      (read) => {
        setError(null);
        setHarnesses(read);
      },
      (failure) => {
        if (life.signal.aborted) return;
        setHarnesses([]);
        setError(failureText(failure));
      },
    );
    return () => life.abort();
  }, []);
  useEffect(() => {
    if (sessions.items) projects.need(sessions.items.map((session) => session.projectId));
  }, [sessions.items, projects.byId]);
  useEffect(() => {
    if (starting) projects.readAll().catch((failure) => setError(failureText(failure)));
  }, [starting]);

  const harnessNames = useMemo(() => new Map((harnesses ?? []).map((harness) => [harness.id, harness.name])), [harnesses]);
  // The rows are drawn once, with their projects' and agents' names (read at the same time): drawn
  // before them, each row was drawn again as each list came, and the first frame waited for all three.
  const rows = harnesses !== null && projects.firstRead ? sessions.items : null;

  return (
    <section>
      <header class="page-header">
        <PageHeading text="Sessions" />
        {harnesses !== null && harnesses.length > 0 && (
          <button type="button" aria-expanded={starting} onClick={() => setStarting(!starting)}>
            {starting ? "Close" : "New session"}
          </button>
        )}
      </header>
      <Alert error={error ?? sessions.error} />
      {starting && <NewSessionForm projects={[...projects.byId.values()]} harnesses={harnesses ?? []} />}
      {(search || rows?.length !== 0) && <SearchField label="Find sessions" placeholder="Title or project" onSearch={setSearch} />}
      {rows === null ? (
        <p class="quiet">{search ? "Finding…" : "Loading…"}</p>
      ) : rows.length === 0 ? (
        <p class="quiet">{search ? "No session's title or project holds that." : "No sessions yet."}</p>
      ) : (
        <ul class="session-list">
          {rows.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              projectName={projects.byId.get(session.projectId)?.name ?? "…"}
              harnessName={harnessNames.get(session.harnessId) ?? session.harnessId}
            />
          ))}
        </ul>
      )}
      {rows !== null && (
        <MoreOnScroll hasMore={sessions.hasMore} loadingMore={sessions.loadingMore} more={sessions.more} shownCount={rows.length} label="Show more sessions" />
      )}
    </section>
  );
}

import { memo } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Harness } from "../../../schemas/harnesses.ts";
import type { Session, SessionListItem, SessionSearchMatch } from "../../../schemas/sessions.ts";
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
import { SessionActions } from "./session-actions.tsx";
import { SearchSnippet } from "./search-snippet.tsx";
import { PageHeading } from "../shell/page-heading.tsx";

/** Sessions on the first page: a phone's screen a few times over, and the server answers it in well under a millisecond. */
const FIRST_SESSIONS = 50;

/** One formatter for every row: toLocaleString with options makes a formatter per call, which costs far more than the formatting. */
const LAST_ACTIVITY = new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "short" });

/** Newest activity first, as the server lists them (ties by id, descending). */
const newestFirst = (a: SessionListItem, b: SessionListItem) =>
  a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * A search lists the sessions whose title or project holds the text first, newest first; then those only
 * their conversation matched (they carry `match`), in the server's rank, which the stable sort keeps.
 */
const searchOrder = (a: SessionListItem, b: SessionListItem) =>
  Number(a.match !== undefined) - Number(b.match !== undefined) || (a.match === undefined ? newestFirst(a, b) : 0);

/**
 * The sessions list (or the archived ones), a page at a time, with the project events its rows' names
 * follow. An event's session keeps the `match` its search found (`matched`: by id), so it stays listed.
 */
function sessionSource(projects: { current: SessionProjects }, archived: boolean, matched: Map<string, SessionSearchMatch>): ListSource<SessionListItem> {
  return {
    kinds: ["session.created", "session.updated", "session.deleted", ...PROJECT_KINDS],
    firstPage: (search) => `/v1/sessions?limit=${FIRST_SESSIONS}${archived ? "&archived=true" : ""}${search ? `&q=${encodeURIComponent(search)}` : ""}`,
    apply(event, { keep, forget }) {
      if (event.kind.startsWith("project.")) projects.current.apply(event);
      else if (event.kind === "session.deleted") forget((event.payload as { sessionId: string }).sessionId);
      else {
        const { session } = event.payload as { session: Session };
        const match = matched.get(session.id);
        keep(match ? { ...session, match } : session);
      }
    },
    compare: searchOrder,
    matches: (session, search) =>
      (session.archivedAt !== null) === archived &&
      (session.match !== undefined || holdsText([session.title, projects.current.byId.get(session.projectId)?.name ?? ""], search)),
    readAlso: () => projects.current.readFirst(),
  };
}

/**
 * A row, drawn again only when its session changed: a new page or event leaves the other rows as they are.
 * Its link's name is all it shows, so two sessions of one title are told apart by their project and time.
 */
const SessionRow = memo(function SessionRow({ session, projectName, harnessName }: { session: SessionListItem; projectName: string; harnessName: string }) {
  const [managing, setManaging] = useState(false);
  const standing = standingOf(session);
  const lastActive = LAST_ACTIVITY.format(new Date(session.updatedAt));
  return (
    <li>
      <div class="session-line">
        <a class="session-row" href={sessionHref(session.id, session.match?.itemId)} data-session={session.id} data-standing={standing}>
          <span class="session-title">{session.title}</span>
          <span class="session-badges">
            <span class={`standing ${standing}`}>{STANDING_LABELS[standing]}</span>
            {session.unreadCount > 0 && <span class={session.hasUnreadError ? "unread has-error" : "unread"}>{session.unreadCount} unread</span>}
          </span>
          <span class="session-meta quiet">
            <span class="session-project">{projectName}</span> · {harnessName} · {lastActive}
          </span>
          {session.match && <SearchSnippet match={session.match} />}
        </a>
        <button type="button" class="quiet-button manage-button" aria-expanded={managing} onClick={() => setManaging(!managing)}>
          <span aria-hidden="true">⋯</span>
          <span class="visually-hidden">Manage {session.title}</span>
        </button>
      </div>
      {managing && <SessionActions session={session} />}
    </li>
  );
});

/** One view of the sessions (the active ones, or the archived), searched: drawn anew when the view changes. */
function SessionList({ archived, projects, harnessNames }: { archived: boolean; projects: SessionProjects; harnessNames: ReadonlyMap<string, string> | null }) {
  const projectsNow = useRef(projects);
  projectsNow.current = projects;
  const matched = useRef(new Map<string, SessionSearchMatch>());
  const [source] = useState(() => sessionSource(projectsNow, archived, matched.current));
  const [search, setSearch] = useState("");
  const sessions = useLiveList(source, search);
  useEffect(() => {
    matched.current.clear();
    for (const session of sessions.items ?? []) if (session.match) matched.current.set(session.id, session.match);
    if (sessions.items) projects.need(sessions.items.map((session) => session.projectId));
  }, [sessions.items, projects.byId]);

  // The rows are drawn once, with their projects' and agents' names (read at the same time): drawn
  // before them, each row was drawn again as each list came, and the first frame waited for all three.
  const rows = harnessNames !== null && projects.firstRead ? sessions.items : null;
  const none = archived ? "No archived sessions." : "No sessions yet.";
  return (
    <>
      <Alert error={sessions.error} />
      {(search || rows?.length !== 0) && <SearchField label="Find sessions" placeholder="A word in a title, project or conversation" onSearch={setSearch} />}
      {rows === null ? (
        <p class="quiet">{search ? "Finding…" : "Loading…"}</p>
      ) : rows.length === 0 ? (
        <p class="quiet">{search ? "No session's title, project or conversation holds that." : none}</p>
      ) : (
        <ul class="session-list">
          {rows.map((session) => (
            <SessionRow
              key={session.id}
              session={session}
              projectName={projects.byId.get(session.projectId)?.name ?? "…"}
              harnessName={harnessNames?.get(session.harnessId) ?? session.harnessId}
            />
          ))}
        </ul>
      )}
      {rows !== null && (
        <MoreOnScroll hasMore={sessions.hasMore} loadingMore={sessions.loadingMore} more={sessions.more} shownCount={rows.length} label="Show more sessions" />
      )}
    </>
  );
}

/** The sessions, latest activity first, read as far as the user scrolls or searches, with their live standing and unread marker; or the archived ones. */
export function SessionsPage() {
  const projects = useSessionProjects();
  const [harnesses, setHarnesses] = useState<Harness[] | null>(null);
  const [starting, setStarting] = useState(false);
  const [archived, setArchived] = useState(false);
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
    if (starting) projects.readAll().catch((failure) => setError(failureText(failure)));
  }, [starting]);

  const harnessNames = useMemo(() => (harnesses === null ? null : new Map(harnesses.map((harness) => [harness.id, harness.name]))), [harnesses]);

  return (
    <section>
      <header class="page-header">
        <PageHeading text="Sessions" />
        <div class="row-actions">
          <button type="button" class="quiet-button" aria-pressed={archived} onClick={() => setArchived(!archived)}>
            Archived
          </button>
          {harnesses !== null && harnesses.length > 0 && (
            <button type="button" aria-expanded={starting} onClick={() => setStarting(!starting)}>
              {starting ? "Close" : "New session"}
            </button>
          )}
        </div>
      </header>
      <Alert error={error} />
      {starting && <NewSessionForm projects={[...projects.byId.values()]} harnesses={harnesses ?? []} />}
      <SessionList key={archived ? "archived" : "active"} archived={archived} projects={projects} harnessNames={harnessNames} />
    </section>
  );
}

import type { Static } from "@sinclair/typebox";
import type { EventLog } from "../events/event-log.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { SessionEvents, SessionListItem } from "../schemas/sessions.ts";
import type { SessionListQuery } from "../schemas/session-requests.ts";
import { DEFAULT_PAGE_SIZE, KeptPages, type Page, type PageAtCursor } from "../store/page-cursor.ts";
import type { SessionFilter, SessionRepository } from "../store/session-repository.ts";
import type { SessionSearchRepository } from "../store/session-search-repository.ts";
import type { SessionRecords } from "./session-records.ts";

export interface SessionListDeps {
  sessions: SessionRepository;
  search: SessionSearchRepository;
  projects: ProjectService;
  events: EventLog<typeof SessionEvents>;
  records: SessionRecords;
}

/** The session list: pages newest activity first, kept serialised until a session or a project changes. */
export class SessionList {
  private readonly kept: KeptPages;

  constructor(private readonly deps: SessionListDeps) {
    this.kept = new KeptPages(() => deps.events.cursor());
  }

  /**
   * A page filtered by project, harness, state and archiving, with the event cursor it was read at; with
   * `q`, the sessions it finds (SessionSearchRepository), each with where its conversation matched.
   */
  page(query: Static<typeof SessionListQuery>): PageAtCursor {
    const { limit = DEFAULT_PAGE_SIZE, cursor, q, archived = false, ...rest } = query;
    const filter: SessionFilter = { ...rest, archived };
    const key = JSON.stringify([filter.projectId, filter.harnessId, filter.state, archived, q, limit, cursor]);
    // A search matches project names too, so a renamed project changes its pages. The conversation's
    // index changes only with a session's record (a prompt taken, a reply ended, a deletion).
    const revision = this.deps.sessions.revision + this.deps.projects.revision;
    return this.kept.get(key, revision, () => (q === undefined ? this.listed(filter, limit, cursor) : this.found(filter, q, limit, cursor)));
  }

  private listed(filter: SessionFilter, limit: number, cursor: string | undefined): Page<SessionListItem> {
    const read = this.deps.sessions.list(filter, limit, cursor);
    return { items: read.items.map((session) => this.deps.records.listView(session)), next: read.next };
  }

  private found(filter: SessionFilter, q: string, limit: number, cursor: string | undefined): Page<SessionListItem> {
    const read = this.deps.search.search(filter, q, limit, cursor);
    return {
      items: read.items.map(({ session, match }) => ({ ...this.deps.records.listView(session), ...(match ? { match } : {}) })),
      next: read.next,
    };
  }
}

import type { Static } from "@sinclair/typebox";
import type { EventLog } from "../events/event-log.ts";
import type { ProjectService } from "../projects/project-service.ts";
import type { SessionEvents, SessionListQuery } from "../schemas/sessions.ts";
import { DEFAULT_PAGE_SIZE, KeptPages, type PageAtCursor } from "../store/page-cursor.ts";
import type { SessionRepository } from "../store/session-repository.ts";
import type { SessionRecords } from "./session-records.ts";

export interface SessionListDeps {
  sessions: SessionRepository;
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

  /** A page filtered by project, harness, state or text, with the event cursor it was read at. */
  page(query: Static<typeof SessionListQuery>): PageAtCursor {
    const { limit = DEFAULT_PAGE_SIZE, cursor, ...filter } = query;
    const key = JSON.stringify([filter.projectId, filter.harnessId, filter.state, filter.q, limit, cursor]);
    // A search matches project names too, so a renamed project changes its pages.
    const revision = this.deps.sessions.revision + this.deps.projects.revision;
    return this.kept.get(key, revision, () => {
      const read = this.deps.sessions.list(filter, limit, cursor);
      return { items: read.items.map((session) => this.deps.records.listView(session)), next: read.next };
    });
  }
}

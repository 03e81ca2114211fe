import type { Store } from "./database.ts";
import { decodeCursor, pageOf, type Page } from "./page-cursor.ts";
import { PROJECT_NAME_HOLDS } from "./project-repository.ts";
import type { SessionMcpServer } from "../schemas/mcps.ts";
import type { AvailableCommand, ConfigOption, Goal, PendingQuestion, SessionMove, SessionPlan, SessionUsage } from "../schemas/sessions.ts";

/** A session as stored: the Session fields that are not derived, and what the server keeps beside them. */
export interface StoredSession {
  id: string;
  projectId: string;
  harnessId: string;
  harnessAccountId: string | null;
  agentSessionId: string | null;
  /**
   * When the agent's current session began (the answer to its session/new was in), for an agent that
   * wipes a session loaded too soon after (AgentQuirks.loadWipesInStartPeriodMs); absent on older sessions.
   */
  agentSessionBeganAt?: string;
  title: string;
  /** Who named it: a title the user gave is never replaced by the agent's or the first prompt's. */
  titleSource: "given" | "agent" | "prompt" | "default";
  worktreeId: string | null;
  worktreeName: string | null;
  workspaceId: string | null;
  cwd: string;
  configSelections: Record<string, string>;
  unavailableConfigSelections: Record<string, string>;
  configOptions: ConfigOption[];
  /** The agent's slash commands as it last listed them; absent until it does (and on sessions from before). */
  availableCommands?: AvailableCommand[];
  createdAt: string;
  updatedAt: string;
  sidebarState: "idle" | "working" | "waiting" | "error";
  sidebarStateChangedAt: string;
  usage: SessionUsage;
  latestAttentionSequence: number;
  lastSeenAttentionSequence: number;
  /** The attention sequence of the last error, to tell whether an unread error exists. */
  lastErrorAttentionSequence: number;
  pendingQuestion: PendingQuestion | null;
  pendingPlanApproval: boolean;
  plan: SessionPlan | null;
  goal: Goal | null;
  parentSessionId: string | null;
  /**
   * The conversation Atrium kept goes to the agent with the next prompt (a fork, another agent, or an
   * agent session that could not be loaded); cleared once a prompt that carried it was answered.
   * Absent on sessions from before handoffs.
   */
  historyHandoff?: boolean;
  /** A fork of the whole conversation on the same harness: the agent session its agent forks (`session/fork`) at its first start, where it can. */
  forkOf?: string | null;
  labels: Record<string, string>;
  status: string | null;
  queuePaused: boolean;
  /** When the user archived it (hidden from the list unless asked for); absent on sessions from before archiving. */
  archivedAt?: string | null;
  /** Its move to a paired machine, once one began; absent on sessions never moved. */
  move?: SessionMove | null;
  /** What the agent was given at its last start; absent on sessions from before MCP servers. */
  mcpServers?: SessionMcpServer[];
}

interface Row {
  data: string;
}

export interface SessionFilter {
  projectId?: string;
  harnessId?: string;
  state?: StoredSession["sidebarState"];
  /** Only archived sessions (true) or only the others (false). */
  archived: boolean;
}

/**
 * SQL that holds when a session's title or its project's name holds the text bound to both `?`. SQLite's
 * lower() folds ASCII letters only: the text goes through it too, so both sides agree.
 */
export const SESSION_NAME_HOLDS = `(instr(lower(json_extract(sessions.data, '$.title')), lower(?)) > 0 OR sessions.project_id IN (SELECT id FROM projects WHERE ${PROJECT_NAME_HOLDS}))`;

/** The filter's conditions on `sessions` (all but the text), with the values they bind. */
export function sessionConditions(filter: SessionFilter): { where: string[]; values: Array<string | number> } {
  const where = [filter.archived ? "sessions.archived_at IS NOT NULL" : "sessions.archived_at IS NULL"];
  const values: Array<string | number> = [];
  const condition = (sql: string, value: string) => {
    where.push(sql);
    values.push(value);
  };
  if (filter.projectId) condition("sessions.project_id = ?", filter.projectId);
  if (filter.harnessId) condition("sessions.harness_id = ?", filter.harnessId);
  if (filter.state) condition("sessions.sidebar_state = ?", filter.state);
  return { where, values };
}

export class SessionRepository {
  constructor(private readonly store: Store) {}

  /** Counts writes to the table (in this process), so that pages read from it can be kept until it changes. */
  revision = 0;

  save(session: StoredSession): void {
    this.revision++;
    this.store.db
      .query(
        `INSERT INTO sessions (id, project_id, harness_id, sidebar_state, created_at, updated_at, archived_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET sidebar_state = excluded.sidebar_state, updated_at = excluded.updated_at, archived_at = excluded.archived_at, data = excluded.data`,
      )
      .run(
        session.id,
        session.projectId,
        session.harnessId,
        session.sidebarState,
        session.createdAt,
        session.updatedAt,
        session.archivedAt ?? null,
        JSON.stringify(session),
      );
  }

  get(id: string): StoredSession | undefined {
    const row = this.store.db.query<Row, [string]>("SELECT data FROM sessions WHERE id = ?").get(id);
    return row ? (JSON.parse(row.data) as StoredSession) : undefined;
  }

  /** A page of sessions, newest activity first; `cursor` continues after the page that gave it out. */
  list(filter: SessionFilter, limit: number, cursor?: string): Page<StoredSession> {
    const { where, values } = sessionConditions(filter);
    if (cursor !== undefined) {
      const [updatedAt, id] = decodeCursor(cursor, 2) as [string, string];
      where.push("(updated_at, id) < (?, ?)");
      values.push(updatedAt, id);
    }
    const sql = `SELECT updated_at, id, data FROM sessions WHERE ${where.join(" AND ")} ORDER BY updated_at DESC, id DESC LIMIT ?`;
    const rows = this.store.db.query<Row & { updated_at: string; id: string }, Array<string | number>>(sql).all(...values, limit + 1);
    return pageOf(
      rows,
      limit,
      (row) => [row.updated_at, row.id],
      (row) => JSON.parse(row.data) as StoredSession,
    );
  }

  /** Sessions whose project is gone (deleted before its sessions went with it). */
  orphanedIds(): string[] {
    return this.store.db
      .query<{ id: string }, []>("SELECT id FROM sessions WHERE project_id NOT IN (SELECT id FROM projects)")
      .all()
      .map((row) => row.id);
  }

  /** The sessions of a project. */
  idsOf(projectId: string): string[] {
    return this.store.db
      .query<{ id: string }, [string]>("SELECT id FROM sessions WHERE project_id = ?")
      .all(projectId)
      .map((row) => row.id);
  }

  /** Removes the session and everything recorded under it. */
  remove(id: string): void {
    this.revision++;
    for (const table of ["sessions", "conversation_items", "prompt_queue", "prompt_receipts", "transcript_entries", "session_schedules"]) {
      this.store.db.query(`DELETE FROM ${table} WHERE ${table === "sessions" ? "id" : "session_id"} = ?`).run(id);
    }
  }
}

import type { RevocationWatch, TokenAuthorization } from "../auth/revocation-watch.ts";
import type { Clock, ClockTimer } from "../clock.ts";
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from "../errors.ts";
import type { EventLog } from "../events/event-log.ts";
import type { SocketHandlers } from "../http/web-socket.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logging/logger.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import type { CreateTerminalBody, PtyTerminal, TerminalEvents, TerminalListQuery, TerminalTicket } from "../schemas/terminals.ts";
import type { Store } from "../store/database.ts";
import { DEFAULT_PAGE_SIZE, decodeCursor, pageOf, type PageAtCursor } from "../store/page-cursor.ts";
import { LiveTerminal, type TerminalExit } from "./live-terminal.ts";
import type { ProjectFolders } from "../projects/project-folders.ts";
import { terminalSocket } from "./terminal-socket.ts";
import { TerminalTickets, type TicketHolder } from "./terminal-tickets.ts";

export interface TerminalLimits {
  /** Terminals running at once; one more is refused (409). */
  maxTerminals: number;
  /** How long an exited terminal stays listed, with its output, before it is forgotten. */
  exitedRetentionMs: number;
  /** Exited terminals kept at once; past it the one that exited first is forgotten early. */
  maxExitedTerminals: number;
  /** Output waiting in one client's socket past this is skipped (terminal-socket.ts). */
  clientBufferBytes: number;
  /** How long an ended terminal's process group has after SIGHUP before SIGKILL. */
  endGraceMs: number;
  /** Input a terminal's program has not taken past this is dropped. */
  maxPendingInputBytes: number;
}

export interface TerminalServiceDeps {
  store: Store;
  events: EventLog<typeof TerminalEvents>;
  clock: Clock;
  logger: Logger;
  /** Closes the sockets of revoked tokens, at the event streams' looks. */
  revocations: RevocationWatch;
  children: ChildProcesses;
  folders: ProjectFolders;
  /** The environment shells start with (TERM is set on top); the server's own in a real server. */
  env: Record<string, string | undefined>;
  limits: TerminalLimits;
  /** Why terminals are refused on this server (clear text beyond loopback), or undefined when they are not. */
  refusal: string | undefined;
}

interface Entry {
  record: PtyTerminal;
  live: LiveTerminal;
  forget?: ClockTimer;
}

const sizeOk = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1000;

/**
 * Terminals: shells (or commands) on pseudo-terminals, in a project's folders, with the rights of the
 * user the server runs as. They live in memory and outlive their clients; they end when their process
 * exits (then stay listed for `exitedRetentionMs`, at most `maxExitedTerminals` of them), on DELETE,
 * with their project or session, and on shutdown. Their processes are recorded with the other
 * children, so the start after a crash ends them.
 */
export class TerminalService {
  private readonly terminals = new Map<string, Entry>();
  private readonly tickets: TerminalTickets;
  /** The exited terminals still kept, in the order they exited. */
  private readonly exitedIds = new Set<string>();
  /** Terminals whose shell is starting: they count against the limit before they are listed. */
  private starting = 0;

  constructor(private readonly deps: TerminalServiceDeps) {
    this.tickets = new TerminalTickets(deps.clock);
  }

  async create(body: CreateTerminalBody): Promise<PtyTerminal> {
    this.checkAllowed();
    const { cwd, sessionId } = this.deps.folders.resolve(body);
    const running = [...this.terminals.values()].filter((entry) => entry.record.state === "running").length + this.starting;
    if (running >= this.deps.limits.maxTerminals) {
      throw new ConflictError(
        `${running} terminals are running, the most this server allows (config.json's maxTerminals); end one (DELETE /v1/terminals/{id}) or raise the limit`,
      );
    }
    const id = newId("term");
    const shell = this.deps.env.SHELL || "/bin/sh";
    const command = body.command ?? null;
    const record: PtyTerminal = {
      id,
      projectId: body.projectId,
      sessionId,
      cwd,
      cols: body.cols,
      rows: body.rows,
      command,
      state: "running",
      exitCode: null,
      signal: null,
      createdAt: new Date(this.deps.clock.now()).toISOString(),
      exitedAt: null,
    };
    let live: LiveTerminal;
    this.starting++;
    try {
      live = await LiveTerminal.start({
        argv: command === null ? [shell] : [shell, "-c", command],
        cwd,
        env: { ...this.deps.env, TERM: "xterm-256color" },
        cols: body.cols,
        rows: body.rows,
        children: this.deps.children,
        endGraceMs: this.deps.limits.endGraceMs,
        maxPendingInputBytes: this.deps.limits.maxPendingInputBytes,
        onExit: (exit) => this.exited(id, exit),
      });
    } catch (error) {
      throw new ConflictError(`the shell ${shell} could not be started: ${(error as Error).message}`);
    } finally {
      this.starting--;
    }
    try {
      // Its project or session may have been deleted while the shell started: then it is not kept.
      this.deps.folders.resolve(body);
      this.deps.store.transaction(() => this.deps.events.append("terminal.created", id, { terminal: record }));
    } catch (error) {
      // Not recorded, so not kept: nothing is left of it.
      void live.end();
      throw error;
    }
    this.terminals.set(id, { record, live });
    this.deps.logger.info("terminal started", { terminalId: id, projectId: record.projectId, pid: live.pid });
    return record;
  }

  list(query: TerminalListQuery): PageAtCursor {
    const after = query.cursor ? decodeCursor(query.cursor, 2) : undefined;
    const key = (terminal: PtyTerminal) => [terminal.createdAt, terminal.id];
    const rows = [...this.terminals.values()]
      .map((entry) => entry.record)
      .filter((terminal) => (!query.projectId || terminal.projectId === query.projectId) && (!query.sessionId || terminal.sessionId === query.sessionId))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .filter((terminal) => !after || terminal.createdAt > after[0]! || (terminal.createdAt === after[0] && terminal.id > after[1]!));
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = pageOf(rows, limit, key, (terminal) => terminal);
    return { json: new TextEncoder().encode(JSON.stringify(page.items)), next: page.next, eventCursor: this.deps.events.cursor() };
  }

  has(id: string): boolean {
    return this.terminals.has(id);
  }

  get(id: string): PtyTerminal {
    return this.entry(id).record;
  }

  resize(id: string, cols: unknown, rows: unknown): PtyTerminal {
    if (!sizeOk(cols) || !sizeOk(rows)) throw new InvalidInputError("cols and rows must be whole numbers from 1 to 1000");
    const entry = this.entry(id);
    if (entry.record.state === "exited") throw new ConflictError(`terminal ${id} has exited`);
    if (entry.record.cols === cols && entry.record.rows === rows) return entry.record;
    // First, so that a PTY that is closing (it throws) leaves no event of a size it never had.
    entry.live.resize(cols, rows);
    const resized = { ...entry.record, cols, rows };
    this.deps.store.transaction(() => this.deps.events.append("terminal.updated", id, { terminal: resized }));
    entry.record = resized;
    return resized;
  }

  /** Ends the terminal's process group (if it still runs) and forgets it. */
  async remove(id: string): Promise<PtyTerminal> {
    const entry = this.entry(id);
    await entry.live.end();
    this.forget(id);
    return entry.record;
  }

  /** A one-time ticket for the terminal's socket (for a browser, which cannot send the token on a WebSocket). */
  ticket(id: string, authorization: TokenAuthorization | undefined): TerminalTicket {
    this.checkAllowed();
    this.entry(id);
    return this.tickets.issue(id, authorization);
  }

  /** Spends a ticket: who it lets in, when it was good for this terminal. */
  spendTicket(id: string, ticket: string): TicketHolder | undefined {
    return this.tickets.spend(id, ticket);
  }

  /**
   * The handlers of one client's socket: the recent output, then live output; its input and resizes.
   * Opened with a named token (or its ticket), it closes when that token is revoked.
   */
  socket(id: string, authorization: TokenAuthorization | undefined): SocketHandlers {
    this.checkAllowed();
    const { live } = this.entry(id);
    return terminalSocket(live, {
      bufferLimit: this.deps.limits.clientBufferBytes,
      resize: (cols, rows) => this.resize(id, cols, rows),
      authorization,
      revocations: this.deps.revocations,
      logger: this.deps.logger,
    });
  }

  /** Ends the terminals of a project that is being deleted. */
  async endAllOf(projectId: string): Promise<void> {
    await this.endWhere((terminal) => terminal.projectId === projectId);
  }

  /** Ends the terminals opened for a session that was deleted. */
  async endSessionTerminals(sessionId: string): Promise<void> {
    await this.endWhere((terminal) => terminal.sessionId === sessionId);
  }

  /** Shutdown: every terminal ends. */
  async stopAll(): Promise<void> {
    await this.endWhere(() => true);
  }

  private async endWhere(matches: (terminal: PtyTerminal) => boolean): Promise<void> {
    const ids = [...this.terminals.values()].filter((entry) => matches(entry.record)).map((entry) => entry.record.id);
    await Promise.all(ids.map((id) => this.remove(id)));
  }

  private exited(id: string, exit: TerminalExit): void {
    const entry = this.terminals.get(id);
    if (!entry) return;
    entry.record = { ...entry.record, state: "exited", ...exit, exitedAt: new Date(this.deps.clock.now()).toISOString() };
    try {
      this.deps.store.transaction(() => this.deps.events.append("terminal.exited", id, { terminal: entry.record }));
    } catch (error) {
      this.deps.logger.warn("could not record a terminal's exit", { terminalId: id, error: (error as Error).message });
    }
    entry.forget = this.deps.clock.setTimeout(() => this.forget(id), this.deps.limits.exitedRetentionMs);
    this.exitedIds.add(id);
    // Each keeps its output: a script that starts many short commands must not pile them up for the retention.
    if (this.exitedIds.size > this.deps.limits.maxExitedTerminals) this.forget(this.exitedIds.values().next().value!);
    this.deps.logger.info("terminal exited", { terminalId: id, ...exit });
  }

  private forget(id: string): void {
    const entry = this.terminals.get(id);
    this.deps.clock.clearTimeout(entry?.forget);
    this.terminals.delete(id);
    this.exitedIds.delete(id);
  }

  private entry(id: string): Entry {
    const entry = this.terminals.get(id);
    if (!entry) throw new NotFoundError(`no terminal has id ${id}`);
    return entry;
  }

  private checkAllowed(): void {
    if (this.deps.refusal) throw new ForbiddenError(this.deps.refusal);
  }
}

import type { Store } from "../store/database.ts";
import type { HarnessEvents } from "../schemas/harnesses.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import { NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";

export interface TerminalLog {
  id: string;
  /** What the output belongs to, e.g. the harness being installed. */
  subjectId: string;
  command: string;
  startedAt: string;
  finishedAt: string | null;
  exitCode: number | null;
  output: string;
  /** Output beyond the kept size was dropped from the start. */
  truncated: boolean;
}

/** Enough for an npm install's whole output; older output is dropped first. */
const MAX_KEPT_CHARS = 256 * 1024;
/** Output is appended as events in batches, not one event per line. */
const FLUSH_INTERVAL_MS = 250;
/** Finished logs kept for reading; the oldest go first. */
const MAX_KEPT_LOGS = 50;

/**
 * The output of commands the server runs for the user (installs, updates), kept in memory to be read
 * by id and streamed as `terminal.output` events while the command runs.
 */
export class TerminalLogs {
  private readonly logs = new Map<string, TerminalLog>();

  constructor(
    private readonly store: Store,
    private readonly events: EventLog<typeof HarnessEvents>,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get(id: string): TerminalLog {
    const log = this.logs.get(id);
    if (!log) throw new NotFoundError(`no terminal has id ${id}`);
    return { ...log };
  }

  /** Starts a log; the returned writer takes lines and is finished with the exit code. */
  open(subjectId: string, command: string): { id: string; write(line: string): void; finish(exitCode: number): void } {
    const log: TerminalLog = {
      id: newId("term"),
      subjectId,
      command,
      startedAt: this.now().toISOString(),
      finishedAt: null,
      exitCode: null,
      output: "",
      truncated: false,
    };
    this.logs.set(log.id, log);
    this.forgetOldest();
    let pending = "";
    let failing = false;
    const flush = () => {
      if (pending.length === 0) return;
      const text = pending;
      pending = "";
      try {
        this.store.transaction(() => this.events.append("terminal.output", log.id, { terminalId: log.id, subjectId, text }));
        failing = false;
      } catch (error) {
        // Kept for the next flush (the output stays readable from memory meanwhile); logged once a streak.
        pending = text + pending;
        if (!failing) this.logger.warn("a terminal's output could not be written; retrying", { terminalId: log.id, error });
        failing = true;
      }
    };
    const timer = setInterval(flush, FLUSH_INTERVAL_MS);
    return {
      id: log.id,
      write: (line) => {
        log.output += `${line}\n`;
        if (log.output.length > MAX_KEPT_CHARS) {
          log.output = log.output.slice(log.output.length - MAX_KEPT_CHARS);
          log.truncated = true;
        }
        pending += `${line}\n`;
      },
      finish: (exitCode) => {
        clearInterval(timer);
        flush();
        log.exitCode = exitCode;
        log.finishedAt = this.now().toISOString();
      },
    };
  }

  private forgetOldest(): void {
    for (const [id, log] of this.logs) {
      if (this.logs.size <= MAX_KEPT_LOGS) break;
      if (log.finishedAt !== null) this.logs.delete(id);
    }
  }
}

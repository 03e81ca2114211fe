/** Longer lines are cut where a status shows them. */
const MAX_NOTICE_CHARS = 300;

/** A line an agent wrote, fit to show: terminal escapes (colours, cursor moves, titles) removed, spaces trimmed, cut to a status's length; "" for nothing. */
export function cleanLine(line: string): string {
  // A log line's own timestamp says nothing the status does not (Codex's: `2026-11-25T18:40:44.123456Z ERROR …`).
  const clean = Bun.stripANSI(line)
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\[?\d{4}-\d\d-\d\d[T ][\d:.,]+(Z|[+-]\d\d:?\d\d)?\]?\s*/, "");
  return clean.length > MAX_NOTICE_CHARS ? `${clean.slice(0, MAX_NOTICE_CHARS)}…` : clean;
}

/**
 * Whether a line an agent logged tells of trouble with its model provider or its own retries (a rate
 * limit, a server error, a reconnect): such a line is shown as the session's status as soon as it
 * comes, so a failing provider does not look like a quiet agent.
 */
export function isTroubleNotice(line: string): boolean {
  return /\bretr(y|ying|ies)\b|reconnect|rate.?limit|\b(429|5\d\d)\b|overloaded|unavailable|timed? ?out|error|failed|falling back/i.test(line);
}

/** What an agent logged during a turn, and when. */
interface LoggedLine {
  text: string;
  atMs: number;
}

/** What the status says while the agent is quiet: for how long, and what it logged during this turn. */
function quietStatus(quietMs: number, lastLogged: LoggedLine | undefined, nowMs = Date.now()): string {
  const said = lastLogged ? `; it last logged ${Math.round((nowMs - lastLogged.atMs) / 1000)} s ago: ${lastLogged.text}` : "";
  return `no word from the agent for ${Math.round(quietMs / 1000)} s${said}`;
}

/** A trouble notice the agent repeats replaces the shown one at most this often. */
const TROUBLE_NOTICE_INTERVAL_MS = 1000;

/**
 * What one turn tells the user of its agent through the session's status: trouble it logs (at once),
 * how long it has been quiet (with what it logged during this turn), and what it said about itself.
 */
export class TurnNotices {
  /** Said in the status when the turn ends well (the agent could not load its history, a fallback it announced). */
  notice: string | null = null;
  private lastLogged: LoggedLine | undefined;
  private lastTrouble: LoggedLine | undefined;

  constructor(
    /** Sets the session's status. */
    private readonly show: (status: string | null) => void,
    /** The agent was heard from (a trouble notice is word from it). */
    private readonly heard: () => void,
  ) {}

  /** A line the agent logged: kept for the quiet notice, and the status at once when it tells of trouble. */
  logged(line: string, nowMs = Date.now()): void {
    const text = cleanLine(line);
    if (!text) return;
    this.lastLogged = { text, atMs: nowMs };
    if (!isTroubleNotice(text)) return;
    const shown = this.lastTrouble;
    if (shown && (shown.text === text || nowMs - shown.atMs < TROUBLE_NOTICE_INTERVAL_MS)) return;
    this.lastTrouble = { text, atMs: nowMs };
    this.heard();
    this.show(`the agent reports: ${text}`);
  }

  /** What the agent said about itself in its reply stream: the status now, and after the turn if it ends well. */
  selfNotice(text: string): void {
    const said = cleanLine(text);
    if (!said) return;
    this.notice = `the agent reports: ${said}`;
    this.show(this.notice);
  }

  /** The agent has sent nothing for `quietMs`. */
  quiet(quietMs: number): void {
    this.show(quietStatus(quietMs, this.lastLogged));
  }

  /**
   * The agent's start waits `waitMs` before it loads its session (an agent that wipes a session loaded
   * too soon after it began); null: the wait is over, and the quiet time counts from now.
   */
  waitingToLoad(waitMs: number | null): void {
    if (waitMs === null) {
      this.heard();
      this.show(this.notice);
      return;
    }
    const seconds = Math.ceil(waitMs / 1000);
    this.show(`waiting ${seconds} s before the agent starts: it would wipe its session if it loaded it sooner after it began (the agent's bug)`);
  }

  /** The agent speaks again after a quiet spell. */
  spokeAgain(): void {
    this.show(this.notice);
  }
}

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
export interface LoggedLine {
  text: string;
  atMs: number;
}

/** What the status says while the agent is quiet: for how long, and what it logged during this turn. */
export function quietStatus(quietMs: number, lastLogged: LoggedLine | undefined, nowMs = Date.now()): string {
  const said = lastLogged ? `; it last logged ${Math.round((nowMs - lastLogged.atMs) / 1000)} s ago: ${lastLogged.text}` : "";
  return `no word from the agent for ${Math.round(quietMs / 1000)} s${said}`;
}

/** How long a session's agent and its turns get for each step. */
export interface SessionTimings {
  /** An agent must answer ACP `initialize` within this long. */
  initializeTimeoutMs: number;
  /** An agent with no turn for this long is stopped; the next prompt starts it again. */
  idleStopMs: number;
  /** Streamed text is written and published at least this often while a reply streams. */
  deltaFlushMs: number;
  /** After a cancel, an agent that has not ended its turn within this long is stopped. */
  cancelGraceMs: number;
  /** A turn with no word from its agent for this long says so in the session's status. */
  silenceNoticeMs: number;
  /** A reply whose writes keep failing (locked database, full disk) this long ends its turn in error. */
  writeFailureLimitMs: number;
}

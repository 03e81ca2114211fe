/**
 * What the event-log benchmarks (event-soak.ts, compaction-delivery.ts) share: the compiled server on
 * a data dir that outlives it (a restart keeps the log), with retention and compaction set in its
 * config.json; the log's cursor and horizon; the database's size on disk; what the server logged at
 * warn and above; and the check that a replay from cursor 0 holds only what is still kept.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiCaller, type ApiCall } from "../lib/api.ts";
import { OFFLINE_CONFIG, atriumCommand, atriumEnv } from "../lib/atrium.ts";
import { SERVER_CPU, onCpu, startServer, type RunningServer } from "../lib/processes.ts";
import { EventStreamReader, type ReceivedEvent } from "./session-common.ts";

export const DAY_SECONDS = 86_400;

export interface DataDirServer {
  server: RunningServer;
  token: string;
  headers: Record<string, string>;
  call: ApiCall;
  /** Wall ms once it printed "listening": its compactor's first pass is timed from about then. */
  startedAt: number;
  /** Stops the server (SIGTERM, a graceful stop); the data dir stays. */
  stop(): Promise<void>;
}

/**
 * The compiled server on `home`, pinned to the server CPU, with `config` (on top of the offline
 * settings) as its config.json, written anew at each start: a restart on the same data dir keeps
 * the database and the token.
 */
export async function startOnDataDir(binary: string, home: string, config: Record<string, unknown>, env: Record<string, string> = {}): Promise<DataDirServer> {
  writeFileSync(join(home, "config.json"), JSON.stringify({ ...OFFLINE_CONFIG, ...config }, null, 2));
  const server = await startServer(onCpu(SERVER_CPU, atriumCommand(binary, 0)), { ...env, ...atriumEnv(home) });
  const startedAt = performance.timeOrigin + performance.now();
  const token = readFileSync(join(home, "token"), "utf8").trim();
  return {
    server,
    token,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    call: apiCaller(server.url, token),
    startedAt,
    stop: () => server.stop(),
  };
}

/** `GET /v1/events/cursor`: the newest committed event and the horizon (events at or below it may be gone). */
export interface LogPosition {
  cursor: number;
  horizon: number;
}

export const logPosition = (call: ApiCall): Promise<LogPosition> => call<LogPosition>(200, "GET", "/v1/events/cursor");

/** `GET /v1/health`'s `events`. */
export interface EventsHealth extends LogPosition {
  retentionDays: number;
  maxMB: number;
  compactionError?: string;
}

export async function eventsHealth(call: ApiCall): Promise<EventsHealth> {
  const health = await call<{ events?: EventsHealth }>(200, "GET", "/v1/health");
  if (!health.events) throw new Error("GET /v1/health has no events field");
  return health.events;
}

export interface DatabaseFiles {
  db: number;
  wal: number;
  shm: number;
}

/** Sizes of atrium.db and its -wal and -shm, 0 for a file that is not there. */
export function databaseFiles(home: string): DatabaseFiles {
  const size = (name: string) => (existsSync(join(home, name)) ? statSync(join(home, name)).size : 0);
  return { db: size("atrium.db"), wal: size("atrium.db-wal"), shm: size("atrium.db-shm") };
}

/** How often and how long sizes are read while waiting for the checkpoint worker's scrub to settle. */
const SETTLE_POLL_MS = 500;
const SETTLE_TIMEOUT_MS = 30_000;

/** atrium.db + -wal, once two readings SETTLE_POLL_MS apart agree (the scrub runs after a pass, in a worker). */
export async function settledDatabaseFiles(home: string): Promise<DatabaseFiles> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  let last = databaseFiles(home);
  for (;;) {
    await Bun.sleep(SETTLE_POLL_MS);
    const now = databaseFiles(home);
    if ((now.db === last.db && now.wal === last.wal) || performance.now() > deadline) return now;
    last = now;
  }
}

export interface ServerLogLine {
  time: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** Every line of the server's JSON log (logs/atrium.log and the files it rotated to), oldest file first. */
export function serverLogLines(home: string): ServerLogLine[] {
  const dir = join(home, "logs");
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((name) => name.startsWith("atrium.log"))
    .sort((a, b) => b.localeCompare(a));
  return files.flatMap((name) =>
    readFileSync(join(dir, name), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as ServerLogLine),
  );
}

/** The server's warnings and errors, each message once with its count: what a run should not have. */
export function serverTrouble(home: string): { warnings: number; errors: number; messages: Record<string, number> } {
  const trouble = serverLogLines(home).filter((line) => line.level === "warn" || line.level === "error");
  const messages: Record<string, number> = {};
  for (const line of trouble) {
    const key = `${line.level}: ${line.msg}${line.error ? ` (${(line.error as { message?: string }).message ?? ""})` : ""}`.slice(0, 300);
    messages[key] = (messages[key] ?? 0) + 1;
  }
  return { warnings: trouble.filter((line) => line.level === "warn").length, errors: trouble.filter((line) => line.level === "error").length, messages };
}

/** Session ids as the server makes them (src/ids.ts): `ses_` and lowercase letters and digits. */
const SESSION_ID = /ses_[a-z0-9]+/g;

export interface ReplayCheck {
  /** The horizon and cursor read just before the stream was opened. */
  horizonBefore: number;
  cursorBefore: number;
  horizonAfter: number;
  events: number;
  firstId: number | null;
  lastId: number | null;
  /** Events at or below `horizonBefore`: compacted events served again. */
  atOrBelowHorizon: number;
  /** Events that name a deleted session, other than its `session.deleted` notice. */
  ofDeletedSessions: number;
  /** The `session.deleted` notices of deleted sessions: the one event of theirs that stays. */
  deletionNotices: number;
  /** ids that did not rise. */
  outOfOrder: number;
  seconds: number;
  /** The first few violations, as text. */
  violations: string[];
}

/**
 * Replays the log from cursor 0 (`GET /v1/events/stream?after=0`) until it has caught up with the
 * cursor read before it opened, and checks that it held only what is kept: nothing at or below the
 * horizon, nothing naming a deleted session but that session's `session.deleted`.
 */
export async function checkReplay(base: string, token: string, call: ApiCall, deleted: ReadonlySet<string>, timeoutMs: number): Promise<ReplayCheck> {
  const before = await logPosition(call);
  const started = performance.now();
  const reader = await EventStreamReader.open(`${base}/v1/events/stream?after=0`, token);
  try {
    await reader.until(() => (reader.events.at(-1)?.globalEventId ?? 0) >= before.cursor, timeoutMs, `the replay up to event ${before.cursor}`);
    const seconds = (performance.now() - started) / 1000;
    const after = await logPosition(call);
    const check: ReplayCheck = {
      horizonBefore: before.horizon,
      cursorBefore: before.cursor,
      horizonAfter: after.horizon,
      events: reader.events.length,
      firstId: reader.events[0]?.globalEventId ?? null,
      lastId: reader.events.at(-1)?.globalEventId ?? null,
      atOrBelowHorizon: 0,
      ofDeletedSessions: 0,
      deletionNotices: 0,
      outOfOrder: 0,
      seconds,
      violations: [],
    };
    let previous = 0;
    for (const event of reader.events) {
      if (event.globalEventId <= previous) check.outOfOrder++;
      previous = event.globalEventId;
      if (event.globalEventId <= before.horizon) {
        check.atOrBelowHorizon++;
        if (check.violations.length < 5) check.violations.push(`event ${event.globalEventId} (${event.kind}) is at or below the horizon ${before.horizon}`);
      }
      const named = namedSessions(event).filter((id) => deleted.has(id));
      if (named.length === 0) continue;
      if (event.kind === "session.deleted" && named.every((id) => id === event.subjectId)) {
        check.deletionNotices++;
        continue;
      }
      check.ofDeletedSessions++;
      if (check.violations.length < 5) check.violations.push(`event ${event.globalEventId} (${event.kind}) names the deleted session ${named[0]}`);
    }
    if (reader.problems.length > 0) check.violations.push(...reader.problems.slice(0, 3));
    return check;
  } finally {
    reader.close();
  }
}

function namedSessions(event: ReceivedEvent): string[] {
  return [...new Set([event.subjectId, ...(JSON.stringify(event.payload).match(SESSION_ID) ?? [])])];
}

/** What makes a replay check fail: served events the log no longer keeps, or the stream broke. */
export function replayViolated(check: ReplayCheck): boolean {
  return check.atOrBelowHorizon > 0 || check.ofDeletedSessions > 0 || check.outOfOrder > 0 || check.violations.length > 0;
}

/**
 * One SSE connection that keeps only what a turn waits for: the text of each assistant reply as it
 * completes, by session (a stream filtered to `session.message.completed`). Thousands of completed
 * events of 10 KB are not kept in memory: each goes to its waiter and is dropped.
 */
export class CompletionWatcher {
  private readonly waiting = new Map<string, PromiseWithResolvers<string>>();
  private readonly abort = new AbortController();
  private readonly connected = Promise.withResolvers<void>();
  private buffer = "";

  private constructor() {}

  static async open(base: string, token: string): Promise<CompletionWatcher> {
    const watcher = new CompletionWatcher();
    void watcher.read(`${base}/v1/events/stream?kind=session.message.completed`, token).catch((error: unknown) => {
      if (!watcher.abort.signal.aborted) watcher.fail(error instanceof Error ? error.message : String(error));
    });
    await watcher.connected.promise;
    return watcher;
  }

  /** The text of the next reply of `sessionId` (one turn at a time per session); ask before sending the prompt. */
  next(sessionId: string): Promise<string> {
    const waiter = Promise.withResolvers<string>();
    this.waiting.set(sessionId, waiter);
    return waiter.promise;
  }

  close(): void {
    this.abort.abort();
  }

  private async read(url: string, token: string): Promise<void> {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: this.abort.signal });
    if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      this.buffer += decoder.decode(chunk, { stream: true });
      for (let end = this.buffer.indexOf("\n\n"); end !== -1; end = this.buffer.indexOf("\n\n")) {
        const frame = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        this.take(frame);
      }
    }
    if (!this.abort.signal.aborted) this.fail("the server ended the event stream");
  }

  private take(frame: string): void {
    const lines = frame.split("\n");
    if (lines.includes(": connected")) this.connected.resolve();
    const data = lines
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "") return;
    const record = JSON.parse(data) as { subjectId: string; payload: { item: { role: string; text: string } } };
    if (record.payload.item.role !== "assistant") return;
    const waiter = this.waiting.get(record.subjectId);
    this.waiting.delete(record.subjectId);
    waiter?.resolve(record.payload.item.text);
  }

  private fail(problem: string): void {
    this.connected.reject(new Error(problem));
    for (const waiter of this.waiting.values()) waiter.reject(new Error(problem));
    this.waiting.clear();
  }
}

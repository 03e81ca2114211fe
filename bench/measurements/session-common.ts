/**
 * What the three session benchmarks share: the compiled server with the benchmark's streaming agent
 * declared as a harness in config.json, a small API client, an SSE reader that timestamps every
 * event, and the agent's reports.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { atriumCommand, atriumEnv } from "../lib/atrium.ts";
import { awaitHarnessReady, type HarnessReadiness } from "../lib/harness-ready.ts";
import { LOAD_CPU, SERVER_CPU, childPids, onCpu, startServer, tempDir, type RunningServer } from "../lib/processes.ts";
import { wallMs, type StreamReport } from "../workers/streaming-agent.ts";

export { wallMs };

/** The id of the streaming agent in the server's config.json. */
export const HARNESS_ID = "bench-stream";
const AGENT_SCRIPT = join(import.meta.dir, "..", "workers", "streaming-agent.ts");

/**
 * The agent as the server and the bare-client baseline start it: Bun on the agent script, pinned to
 * the load CPU, so that it never takes the server's core.
 */
export function agentCommand(): string[] {
  return onCpu(LOAD_CPU, [process.execPath, AGENT_SCRIPT]);
}

const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * A custom harness is started as its executable with ACP on stdio, and detected by running it with
 * `--version`: a shell wrapper answers that at once and otherwise execs the agent.
 */
export function writeAgentWrapper(path: string): void {
  const script = [
    "#!/bin/sh",
    '[ "$1" = "--version" ] && { echo "bench-streaming-agent 1.0.0"; exit 0; }',
    `exec ${agentCommand().map(shellQuote).join(" ")}`,
    "",
  ].join("\n");
  writeFileSync(path, script);
  chmodSync(path, 0o755);
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

export interface ConversationItemView {
  id: string;
  role: string;
  text: string;
  isGenerating: boolean;
  stopReason: string | null;
}

export interface DetailView {
  conversation: ConversationItemView[];
  hasMore: boolean;
  nextBefore: string | null;
  promptQueue: unknown[];
  session: { sidebarState: string; status: string | null };
}

export interface SessionBench {
  server: RunningServer;
  token: string;
  headers: Record<string, string>;
  /** Where the agents write their reports. */
  reportsDir: string;
  api<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** A scratch project when none is given, then a session of the streaming agent in it. */
  newSession(projectId?: string): Promise<{ sessionId: string; projectId: string }>;
  prompt(sessionId: string, text: string): Promise<void>;
  /** Waits for the agent's report of the stream tagged `tag`. */
  report(tag: string, timeoutMs: number): Promise<StreamReport>;
  openEvents(query: string): Promise<EventStreamReader>;
  stop(): Promise<void>;
}

/** How long the server's first harness scan may take to find the agent. */
const HARNESS_READY_MS = 15_000;

/**
 * The compiled server on a fresh data dir whose config.json declares the streaming agent (and turns
 * the npm update check off, so that no npm runs beside the measurement), pinned to the server CPU.
 * Resolves once the harness is ready and enabled.
 */
export async function startSessionBench(binary: string): Promise<SessionBench> {
  const dir = tempDir("sessions");
  const home = join(dir, "home");
  const reportsDir = join(dir, "reports");
  const wrapper = join(dir, "streaming-agent");
  mkdirSync(home);
  mkdirSync(reportsDir);
  writeAgentWrapper(wrapper);
  const config = { harnessUpdateCheck: false, harnesses: [{ id: HARNESS_ID, name: "Benchmark streaming agent", executable: wrapper }] };
  writeFileSync(join(home, "config.json"), JSON.stringify(config, null, 2));
  let server: RunningServer;
  try {
    server = await startServer(onCpu(SERVER_CPU, atriumCommand(binary, 0)), { ...atriumEnv(home), STREAMING_AGENT_REPORTS: reportsDir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const token = readFileSync(join(home, "token"), "utf8").trim();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const response = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const expect = async <T>(status: number, method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await api<T>(method, path, body);
    if (answer.status !== status) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const bench: SessionBench = {
    server,
    token,
    headers,
    reportsDir,
    api,
    async newSession(projectId) {
      const project = projectId ?? (await expect<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true })).id;
      const session = await expect<{ id: string }>(201, "POST", "/v1/sessions", { projectId: project, harnessId: HARNESS_ID });
      return { sessionId: session.id, projectId: project };
    },
    async prompt(sessionId, text) {
      await expect(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text });
    },
    async report(tag, timeoutMs) {
      const file = join(reportsDir, `${tag}.json`);
      const deadline = performance.now() + timeoutMs;
      while (!existsSync(file)) {
        if (performance.now() > deadline) throw new Error(`the agent wrote no report for ${tag} within ${timeoutMs} ms`);
        await Bun.sleep(1);
      }
      return JSON.parse(readFileSync(file, "utf8")) as StreamReport;
    },
    openEvents: (query) => EventStreamReader.open(`${server.url}/v1/events/stream${query}`, token),
    async stop() {
      try {
        await stopAgents(bench);
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await awaitHarnessReady(async () => (await bench.api<HarnessReadiness[]>("GET", "/v1/harnesses")).body, HARNESS_ID, HARNESS_READY_MS);
  } catch (error) {
    await bench.stop();
    throw error;
  }
  return bench;
}

/** How long the server may take to reap the agents it killed. */
const AGENT_REAP_MS = 5_000;

/**
 * Deletes every session, which stops its agent, and waits until the server has reaped them. The
 * "CPU used by other processes" row counts only processes this benchmark has reaped, and a process
 * is counted towards its parent when it is reaped: agents the server never reaped (it exits right
 * after killing them) would show up as someone else's CPU.
 */
async function stopAgents(bench: SessionBench): Promise<void> {
  const agents = childPids(bench.server.pid);
  const sessions = await bench.api<Array<{ id: string }>>("GET", "/v1/sessions");
  for (const { id } of sessions.body) await bench.api("DELETE", `/v1/sessions/${id}`);
  const deadline = performance.now() + AGENT_REAP_MS;
  while (agents.some((pid) => existsSync(`/proc/${pid}`)) && performance.now() < deadline) await Bun.sleep(10);
}

/**
 * Bytes a process has handed to write(2) and the like, from /proc/<pid>/io (`wchar`): SQLite's WAL
 * and checkpoint writes, log lines and socket writes alike.
 */
export function writtenBytes(pid: number): number {
  const match = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  if (!match) throw new Error(`no wchar in /proc/${pid}/io`);
  return Number(match[1]);
}

/** An event as the benchmark's SSE client received it. */
export interface ReceivedEvent {
  /** The per-session sequence for session events, else the globalEventId. */
  id: number;
  globalEventId: number;
  kind: string;
  subjectId: string;
  payload: Record<string, unknown>;
  /**
   * Wall ms when the bytes that completed the frame were read from the socket, before parsing:
   * parsing a megabyte-long frame takes this process milliseconds, which are not the server's.
   */
  receivedAt: number;
  /** Wall ms once the frame was parsed. */
  parsedAt: number;
}

/**
 * One SSE connection, parsed like EventSource (fields, comments, data lines joined); every event is
 * kept with the wall time its last bytes arrived and the time it was parsed. Frames whose `id:` or `event:` disagree with the data are
 * recorded as problems.
 */
export class EventStreamReader {
  readonly events: ReceivedEvent[] = [];
  /** Bytes read from the stream so far: what the server wrote to this socket. */
  bytesRead = 0;
  readonly problems: string[] = [];
  private pending: string[] = [];
  private pendingEndsWithNewline = false;
  private readonly abort = new AbortController();
  private readonly connected = Promise.withResolvers<void>();
  private ended = false;

  private constructor() {}

  /** Resolves on the server's ": connected" comment, sent once the stream is subscribed. */
  static async open(url: string, token: string): Promise<EventStreamReader> {
    const reader = new EventStreamReader();
    void reader.read(url, token).catch((error: unknown) => {
      if (!reader.abort.signal.aborted) reader.fail(error instanceof Error ? error.message : String(error));
    });
    await reader.connected.promise;
    return reader;
  }

  close(): void {
    this.abort.abort();
  }

  /** Polls until `done` holds; throws when the stream broke or `timeoutMs` passed. */
  async until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      if (this.problems.length > 0 && this.ended) throw new Error(`the event stream broke while waiting for ${what}: ${this.problems[0]}`);
      if (performance.now() > deadline) throw new Error(`no ${what} on the event stream within ${timeoutMs} ms`);
      await Bun.sleep(2);
    }
  }

  private async read(url: string, token: string): Promise<void> {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" }, signal: this.abort.signal });
    if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      const arrivedAt = wallMs();
      this.bytesRead += chunk.byteLength;
      this.takeText(decoder.decode(chunk, { stream: true }), arrivedAt);
    }
    if (!this.abort.signal.aborted) this.fail("the server ended the event stream");
  }

  /**
   * Splits the stream into frames at blank lines. A frame can be megabytes long (a completed reply),
   * so its text is kept in pieces and only each new piece is searched, never the whole frame again.
   */
  private takeText(text: string, arrivedAt: number): void {
    if (text.length === 0) return;
    let start = 0;
    if (this.pendingEndsWithNewline && text.startsWith("\n")) {
      // The blank line straddles two reads.
      const block = this.pending.join("");
      this.pending = [];
      this.takeFrame(block.slice(0, -1), arrivedAt);
      start = 1;
    }
    for (let end = text.indexOf("\n\n", start); end !== -1; end = text.indexOf("\n\n", start)) {
      this.pending.push(text.slice(start, end));
      const block = this.pending.join("");
      this.pending = [];
      this.takeFrame(block, arrivedAt);
      start = end + 2;
    }
    const rest = text.slice(start);
    if (rest.length > 0) this.pending.push(rest);
    this.pendingEndsWithNewline = rest.endsWith("\n");
  }

  private takeFrame(block: string, arrivedAt: number): void {
    let id: string | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        if (line.slice(1).trim() === "connected") this.connected.resolve();
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (id === undefined) return;
    const record = JSON.parse(data.join("\n")) as Omit<ReceivedEvent, "receivedAt" | "parsedAt">;
    if (record.globalEventId !== Number(id) || record.kind !== event) this.problems.push(`frame ${id} disagrees with its data`);
    this.events.push({ ...record, receivedAt: arrivedAt, parsedAt: wallMs() });
  }

  private fail(problem: string): void {
    this.ended = true;
    this.problems.push(problem);
    this.connected.reject(new Error(problem));
  }
}

/** The reply item a turn made: the assistant `session.message.created` of `sessionId` at or after `fromIndex`. */
export function replyItemId(reader: EventStreamReader, sessionId: string, fromIndex = 0): string | undefined {
  for (let index = fromIndex; index < reader.events.length; index++) {
    const event = reader.events[index]!;
    if (event.subjectId !== sessionId || event.kind !== "session.message.created") continue;
    const item = event.payload.item as ConversationItemView;
    if (item.role === "assistant") return item.id;
  }
  return undefined;
}

/** The `session.message.delta` events of one item, in the order received. */
export function deltasOf(reader: EventStreamReader, itemId: string, fromIndex = 0): Array<{ text: string; receivedAt: number }> {
  const deltas: Array<{ text: string; receivedAt: number }> = [];
  for (let index = fromIndex; index < reader.events.length; index++) {
    const event = reader.events[index]!;
    if (event.kind === "session.message.delta" && event.payload.itemId === itemId) {
      deltas.push({ text: event.payload.text as string, receivedAt: event.receivedAt });
    }
  }
  return deltas;
}

/** The `session.message.completed` event of one item, once received. */
export function completionOf(reader: EventStreamReader, itemId: string, fromIndex = 0): ReceivedEvent | undefined {
  for (let index = fromIndex; index < reader.events.length; index++) {
    const event = reader.events[index]!;
    if (event.kind === "session.message.completed" && (event.payload.item as ConversationItemView).id === itemId) return event;
  }
  return undefined;
}

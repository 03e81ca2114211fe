/** Building the binary under test and starting it: the launcher every measurement uses for Atrium. */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { compileBinary } from "../../release/compile.ts";
import type { AgentServer } from "./agents.ts";
import { EventStream, type EventStreamOptions, wallMs } from "./events.ts";
import { SERVER_CPU, freePort, launch, onCpu, tempDir, until } from "./processes.ts";

/** Compiles the working tree as `npm run build` does, into a temp dir; with `entrypoints`, those with the same flags. */
export async function buildBinary(entrypoints?: string[]) {
  const dir = tempDir("build");
  const path = join(dir, "atrium");
  const started = performance.now();
  await compileBinary({ outfile: path, version: packageJson.version, buildNumber: 0, channel: "bench", commit: gitRevision(), entrypoints });
  return { path, buildSeconds: (performance.now() - started) / 1000, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The commit the figures belong to, marked dirty when the working tree has uncommitted changes. */
export function gitRevision(): string {
  const result = Bun.spawnSync(["git", "describe", "--always", "--dirty"], { cwd: import.meta.dir, stderr: "ignore" });
  return result.stdout.toString().trim() || "unknown";
}

/** Loopback only, at the production log level whatever the caller's environment says. */
export function atriumCommand(binary: string, port: number): string[] {
  return [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "info"];
}

/** A config.json that keeps the server off the network: no registry lookups of harness versions, no release checks. */
export const OFFLINE_CONFIG = { harnessUpdateCheck: false, updateCheckIntervalHours: 0 };

/** Calls the server's interface with a token; an answer other than `status` throws with its body. */
export type ApiCall = <T>(status: number, method: string, path: string, body?: unknown) => Promise<T>;

export function apiCaller(base: string, token: string): ApiCall {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  return async <T>(status: number, method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== status) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
}

/** One GET timed from sending to the last byte of the body, read as bytes; anything but 200 throws. */
export async function timedGet(base: string, headers: Record<string, string>, path: string): Promise<{ ms: number; body: Uint8Array<ArrayBuffer> }> {
  const started = performance.now();
  const response = await fetch(base + path, { headers });
  const body = new Uint8Array(await response.arrayBuffer());
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return { ms, body };
}

/** The next page's path in a `Link` header (`<path>; rel="next"`), if any. */
export const nextLink = (link: string | null | undefined): string | undefined => /^<([^>]+)>; rel="next"$/.exec(link ?? "")?.[1];

export interface AtriumOptions {
  /** Its data dir, which outlives the server; a temp dir removed at stop when not given. */
  home?: string;
  /** Written as config.json over the offline settings; without it, no config.json. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Its harness, config and environment under the above, its harness waited for (bench/lib/agents.ts). */
  agent?: AgentServer;
  /** A port of its own (to come back on after a restart); else one the OS picks. */
  port?: number;
  /** Unpinned, as a user starts it, rather than on the server CPU. */
  unpinned?: boolean;
  /** Ready once `GET /v1/health` answers 200 without a token (on a port chosen free), rather than on "listening on". */
  pollHealth?: boolean;
  /** Waits until the server's first scan finds this harness ready. */
  harness?: string;
}

/** The compiled server on a data dir, as `AtriumOptions` say; a step after the start that fails stops it first. */
export async function startAtrium(binary: string, { agent, ...given }: AtriumOptions = {}) {
  const options = agent
    ? { ...given, config: { ...agent.config, ...given.config }, env: { ...agent.env, ...given.env }, harness: given.harness ?? agent.harness }
    : given;
  const home = options.home ?? tempDir("home");
  const removeHome = () => (options.home ? undefined : rmSync(home, { recursive: true, force: true }));
  if (options.config) writeFileSync(join(home, "config.json"), JSON.stringify({ ...OFFLINE_CONFIG, ...options.config }, null, 2));
  const port = options.port ?? (options.pollHealth ? freePort() : 0);
  const command = atriumCommand(binary, port);
  const launched = await launch({
    command: options.unpinned ? command : onCpu(SERVER_CPU, command),
    env: { ...options.env, ATRIUM_HOME: home },
    poll: options.pollHealth ? { url: `http://127.0.0.1:${port}/v1/health` } : undefined,
    timeoutMs: options.pollHealth ? 5_000 : 30_000,
  }).catch((error: unknown) => {
    removeHome();
    throw error;
  });
  const startedAt = wallMs();
  const token = readFileSync(join(home, "token"), "utf8").trim();
  const headers = { authorization: `Bearer ${token}` };
  const call = apiCaller(launched.url, token);
  const get = (path: string) => timedGet(launched.url, headers, path);
  const atrium = {
    ...launched,
    /** Wall ms (bench/lib/events.ts `wallMs`) when it was ready: its compactor's first pass is timed from about then. */
    startedAt,
    token,
    home,
    headers,
    call,
    /** `timedGet` of a path with the token. */
    get,
    json: async <T>(path: string): Promise<T> => JSON.parse(new TextDecoder().decode((await get(path)).body)),
    /** `count` sequential timed GETs of `pathOf(request)`, in ms (Array.fromAsync awaits each before it asks for the next). */
    timeGets: (count: number, pathOf: (request: number) => string) => Array.fromAsync({ length: count }, async (_, request) => (await get(pathOf(request))).ms),
    events: (query = "", eventOptions?: EventStreamOptions) => EventStream.open(`${launched.url}/v1/events/stream${query}`, token, eventOptions),
    // The server stops its agents and waits for them, so their CPU comes back to us with its own.
    async stop() {
      await launched.stop();
      removeHome();
    },
  };
  const harness = options.harness;
  if (harness) {
    type Listed = { id: string; enabled: boolean; readiness: { state: string } }[];
    const ready = async () => (await call<Listed>(200, "GET", "/v1/harnesses")).some((h) => h.id === harness && h.enabled && h.readiness.state === "ready");
    await until(async () => (await ready()) || undefined, 15_000, `harness ${harness} ready`, 50).catch(async (error: unknown) => {
      await atrium.stop();
      throw error;
    });
  }
  return atrium;
}

export type Atrium = Awaited<ReturnType<typeof startAtrium>>;

/** A PUT /v1/sync body newer each time (`sequence` rises), so that each such write appends exactly one sync.changed event. */
export const syncWrite = (sequence: number, key = "k") => ({
  entries: [{ key, value: sequence, timestamp: { wallMs: 1_000_000 + sequence, counter: 0, deviceId: "bench" } }],
});

export async function scratchProject(atrium: Atrium, name?: string): Promise<string> {
  return (await atrium.call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name })).id;
}

/** A project of an existing folder, with the base of its first location's routes. */
export async function folderProject(atrium: Atrium, folderPath: string): Promise<{ id: string; location: string }> {
  const project = await atrium.call<{ id: string; locations: { id: string }[] }>(201, "POST", "/v1/projects", { folderPath });
  return { id: project.id, location: `/v1/projects/${project.id}/locations/${project.locations[0]!.id}` };
}

export async function newSession(atrium: Atrium, projectId: string, harnessId: string, title?: string): Promise<string> {
  return (await atrium.call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId, title })).id;
}

/** A session of `harnessId` in a new scratch project. */
export const scratchSession = async (atrium: Atrium, harnessId: string, title?: string, projectName?: string) =>
  newSession(atrium, await scratchProject(atrium, projectName), harnessId, title);

export const prompt = (atrium: Atrium, sessionId: string, text: string) => atrium.call(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text });

/** A page of a session's conversation, as GET /v1/sessions/{id} answers it. */
export interface ConversationPage {
  session: { sidebarState: string; status: string | null };
  conversation: { id: string; role: string; text: string; isGenerating: boolean }[];
  promptQueue: unknown[];
  hasMore: boolean;
  nextBefore: string | null;
}

/** A session with its newest item. */
export const newestPage = (atrium: Atrium, sessionId: string) => atrium.call<ConversationPage>(200, "GET", `/v1/sessions/${sessionId}?limit=1`);

/** Every page of a session's conversation, newest first, each with the `before` cursor that read it. */
export async function* conversationPages(atrium: Atrium, sessionId: string, limit = 200): AsyncGenerator<ConversationPage & { before: string | null }> {
  for (let before: string | null = null; ; ) {
    const page: ConversationPage = await atrium.call(200, "GET", `/v1/sessions/${sessionId}?limit=${limit}${before ? `&before=${before}` : ""}`);
    yield { ...page, before };
    if (!page.hasMore || !page.nextBefore) return;
    before = page.nextBefore;
  }
}

/** Sends `prompts` at once (the server queues them and runs one turn at a time), then waits until none is queued or running. */
export async function runTurns(atrium: Atrium, sessionId: string, prompts: string[], timeoutMs: number, everyMs = 250): Promise<void> {
  for (const text of prompts) await prompt(atrium, sessionId, text);
  const idle = async () => {
    const detail = await newestPage(atrium, sessionId);
    if (detail.session.sidebarState === "error") throw new Error(`the session went into error: ${detail.session.status}`);
    const newest = detail.conversation.at(-1);
    return detail.session.sidebarState !== "working" && detail.promptQueue.length === 0 && newest?.role === "assistant" && !newest.isGenerating
      ? true
      : undefined;
  };
  await until(idle, timeoutMs, `${prompts.length} turns`, everyMs);
}

/**
 * `projects` scratch projects named "Project 1".., one after the other, then `sessions` echo sessions
 * titled "Session 1".., spread over the projects in turn, a few at a time.
 */
export async function seedEchoSessions(call: ApiCall, sessions: number, projects: number): Promise<void> {
  const ids: string[] = [];
  for (let index = 1; index <= projects; index++) {
    ids.push((await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name: `Project ${index}` })).id);
  }
  await inParallel(sessions, async (index) => {
    await call(201, "POST", "/v1/sessions", { projectId: ids[index % projects], harnessId: "echo", title: `Session ${index + 1}` });
  });
}

/** How many warnings and errors a server's JSON log in `home` holds (logs/atrium.log and the files it rotated to): what a run should not have. */
export function serverTrouble(home: string): number {
  const dir = join(home, "logs");
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((name) => name.startsWith("atrium.log"))
    .flatMap((name) => readFileSync(join(dir, name), "utf8").split("\n"))
    .filter((line) => line.startsWith("{") && ["warn", "error"].includes((JSON.parse(line) as { level: string }).level)).length;
}

/** Requests made at once while seeding a server; the servers take them one by one anyway. */
const SEED_CONCURRENCY = 8;

/** Runs `run(index)` for 0..count-1, `SEED_CONCURRENCY` at a time, in index order of starting. */
export async function inParallel(count: number, run: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

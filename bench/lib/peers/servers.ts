/**
 * The three servers the peer benchmark compares, each described the same way: how it starts on its own
 * data dir, how sessions get into it, where its session list is and how its console is opened signed in.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { apiCaller, atriumCommand, inParallel, nextLink, OFFLINE_CONFIG, seedEchoSessions } from "../atrium.ts";
import { signedIn } from "../browser.ts";
import { PLATFORM, type PeerPackage } from "./install.ts";

export const HAPI_PACKAGE: PeerPackage = { name: "@twsxtd/hapi", version: "0.30.7", binary: `@twsxtd/hapi-${PLATFORM}/bin/hapi` };
export const OPENCODE_PACKAGE: PeerPackage = { name: "opencode-ai", version: "1.18.33", binary: `opencode-${PLATFORM}/bin/opencode` };

export interface ConsoleTarget {
  /** Opened on the server's origin. */
  path: string;
  /** The localStorage of a returning visitor, signed in, for a page on `origin`. */
  storage(origin: string): Record<string, string>;
  /** The first element that shows list content taken from the session records. */
  rowSelector: string;
  /** Path names (no query) of the requests that read the session list. */
  listPath: RegExp;
}

export interface BenchServer {
  name: string;
  command(port: number): string[];
  env(port: number): Record<string, string>;
  /** Answers 200 without credentials once the server is up (for the first start, before signing in). */
  healthPath: string;
  /** After the first start: reads or obtains the credentials `headers()` sends. */
  signIn(base: string): Promise<void>;
  headers(): Record<string, string>;
  seed(base: string, sessions: number, projects: string[]): Promise<void>;
  /** A page of 50, also polled for the cold start. */
  firstPagePath: string;
  fullListPath: string;
  /** The next request of the full list, as the server's own client makes it; undefined at the end. */
  nextPage(body: unknown, link: string | undefined): string | undefined;
  records(body: unknown): unknown[];
  console: ConsoleTarget;
}

/** POST as JSON; a request a server leaves unanswered 30 s fails the seeding rather than the whole run. */
async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const init = { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** HOME and the XDG dirs under `home`, so that a peer reads and writes nothing of the user's. */
function isolatedEnv(home: string): Record<string, string> {
  const dirs = { XDG_CONFIG_HOME: ".config", XDG_DATA_HOME: ".local/share", XDG_CACHE_HOME: ".cache", XDG_STATE_HOME: ".local/state", TMPDIR: "tmp" };
  const env: Record<string, string> = { HOME: home };
  for (const [name, dir] of Object.entries(dirs)) {
    env[name] = join(home, dir);
    mkdirSync(env[name], { recursive: true });
  }
  return env;
}

/** The compiled Atrium on `home`, made offline by its config; echo sessions in scratch projects. */
export function atriumServer(binary: string, home: string): BenchServer {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.json"), JSON.stringify(OFFLINE_CONFIG));
  let token = "";
  return {
    name: "Atrium",
    command: (port) => atriumCommand(binary, port),
    env: () => ({ ATRIUM_HOME: home }),
    healthPath: "/v1/health",
    async signIn() {
      token = readFileSync(join(home, "token"), "utf8").trim();
    },
    headers: () => ({ authorization: `Bearer ${token}` }),
    async seed(base, sessions, projects) {
      // Scratch projects of its own, as many as `projects` names: the directories themselves are not used.
      await seedEchoSessions(apiCaller(base, token), sessions, projects.length);
    },
    firstPagePath: "/v1/sessions?limit=50",
    fullListPath: "/v1/sessions?limit=200",
    nextPage: (_body, link) => nextLink(link),
    records: (body) => body as unknown[],
    console: {
      path: "/#/sessions",
      storage: () => signedIn(token),
      rowSelector: ".session-row",
      listPath: /^\/v1\/sessions$/,
    },
  };
}

const HAPI_CLI_TOKEN = "atrium-bench-0123456789abcdef0123456789abcdef";

/**
 * `hapi hub` on `home`: no relay tunnel, iOS push off, its push relay pointed at a closed port.
 * Sessions come in through POST /cli/sessions, as `hapi <agent>` registers one, with the metadata the
 * CLI sends (hapi cli/src/agent/sessionFactory.ts).
 */
export function hapiServer(binary: string, home: string): BenchServer {
  const data = join(home, "hapi");
  const env = isolatedEnv(home);
  let jwt = "";
  return {
    name: "HAPI",
    command: () => [binary, "hub", "--no-relay"],
    env: (port) => ({
      ...env,
      HAPI_HOME: data,
      CLI_API_TOKEN: HAPI_CLI_TOKEN,
      HAPI_LISTEN_HOST: "127.0.0.1",
      HAPI_LISTEN_PORT: String(port),
      HAPI_IOS_PUSH: "off",
      HAPI_PUSH_RELAY_URL: "http://127.0.0.1:9",
    }),
    healthPath: "/health",
    async signIn(base) {
      // The web app trades the access token for a JWT the same way; it lasts 4 h and survives restarts (its secret is on disk).
      jwt = ((await postJson(`${base}/api/auth`, {}, { accessToken: HAPI_CLI_TOKEN })) as { token: string }).token;
    },
    headers: () => ({ authorization: `Bearer ${jwt}` }),
    async seed(base, sessions, projects) {
      const cli = { authorization: `Bearer ${HAPI_CLI_TOKEN}` };
      const startedAt = Date.now();
      await inParallel(sessions, async (index) => {
        const metadata = {
          path: projects[index % projects.length],
          host: "bench",
          version: HAPI_PACKAGE.version,
          os: process.platform,
          name: `Session ${index + 1}`,
          machineId: "bench-machine",
          homeDir: home,
          happyHomeDir: data,
          happyLibDir: join(data, "runtime", HAPI_PACKAGE.version),
          happyToolsDir: join(data, "runtime", HAPI_PACKAGE.version, "tools", "unpacked"),
          startedFromRunner: false,
          hostPid: process.pid,
          startedBy: "terminal",
          lifecycleState: "running",
          lifecycleStateSince: startedAt,
          flavor: "claude",
          capabilities: { terminal: true },
        };
        await postJson(`${base}/cli/sessions`, cli, { tag: `bench-${index + 1}`, metadata, agentState: null });
      });
    },
    firstPagePath: "/api/sessions?limit=50",
    fullListPath: "/api/sessions",
    nextPage: () => undefined,
    records: (body) => (body as { sessions: unknown[] }).sessions,
    console: {
      path: "/",
      // Where its web app keeps the access token it signs in with (web/src/hooks/useAuthSource.ts).
      storage: (origin) => ({ [`hapi_access_token::${origin}`]: HAPI_CLI_TOKEN }),
      // One row per directory, collapsed, each with its count: the list's first content.
      rowSelector: "[data-session-scroll-anchor]",
      listPath: /^\/api\/sessions$/,
    },
  };
}

/** What opencode's own flags switch off: every download, update and share, its default plugins and the skills of other tools. */
const OPENCODE_OFF = ["AUTOUPDATE", "MODELS_FETCH", "LSP_DOWNLOAD", "SHARE", "DEFAULT_PLUGINS", "EXTERNAL_SKILLS", "CLAUDE_CODE"];

/** What its web app asks for at a time, and pages on with the cursor while a page comes back full. */
const OPENCODE_PAGE = 5_000;

/**
 * `opencode serve` with every download and update switched off by its own flags. Its config dir is
 * laid out as if its background `npm install @opencode-ai/plugin` had already run, which it then skips
 * (its Npm.install finds node_modules and a lock naming the package). Sessions come in through
 * POST /session?directory=…, one git repository per project.
 */
export function opencodeServer(binary: string, home: string): BenchServer {
  const env = isolatedEnv(home);
  const configDir = join(env.XDG_CONFIG_HOME!, "opencode");
  mkdirSync(join(configDir, "node_modules"), { recursive: true });
  const dependencies = { "@opencode-ai/plugin": OPENCODE_PACKAGE.version };
  writeFileSync(join(configDir, "package.json"), JSON.stringify({ dependencies }));
  writeFileSync(join(configDir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies } } }));
  let projectDirs: string[] = [];
  return {
    name: "opencode",
    command: (port) => [binary, "serve", "--hostname", "127.0.0.1", "--port", String(port)],
    env: () => ({
      ...env,
      ...Object.fromEntries(OPENCODE_OFF.map((what) => [`OPENCODE_DISABLE_${what}`, "1"])),
      OPENCODE_PURE: "1",
      // Should it install anyway, the registry is a closed port.
      npm_config_registry: "http://127.0.0.1:9/",
    }),
    healthPath: "/global/health",
    async signIn() {},
    headers: () => ({}),
    async seed(base, sessions, projects) {
      projectDirs = projects;
      // Each project's first session alone, so that opencode sets each project up once, not eight times at once.
      for (const [index, project] of projects.entries()) {
        await postJson(`${base}/session?directory=${encodeURIComponent(project)}`, {}, { title: `Session ${index + 1}` });
      }
      await inParallel(sessions - projects.length, async (rest) => {
        const index = rest + projects.length;
        const directory = encodeURIComponent(projects[index % projects.length]!);
        await postJson(`${base}/session?directory=${directory}`, {}, { title: `Session ${index + 1}` });
      });
    },
    firstPagePath: "/api/session?limit=50&order=desc",
    fullListPath: `/api/session?limit=${OPENCODE_PAGE}&order=desc`,
    nextPage(body) {
      const page = body as { data: unknown[]; cursor?: { next?: string } };
      const next = page.cursor?.next;
      return page.data.length < OPENCODE_PAGE || !next ? undefined : `/api/session?limit=${OPENCODE_PAGE}&order=desc&cursor=${encodeURIComponent(next)}`;
    },
    records: (body) => (body as { data: unknown[] }).data,
    console: {
      path: "/",
      // Its home lists the sessions of the projects the visitor opened before, kept in localStorage
      // (the "server" store, "local" scope); no project open, it lists none. No password is set, so no sign-in.
      storage: () => ({
        "opencode.global.dat:server": JSON.stringify({
          list: [],
          projects: { local: projectDirs.map((worktree) => ({ worktree, expanded: true })) },
          lastProject: {},
          recentlyClosed: {},
        }),
      }),
      rowSelector: '[data-component="home-session-row"]',
      listPath: /^\/(api\/)?session$/,
    },
  };
}

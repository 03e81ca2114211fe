/**
 * Atrium against two peers installed from npm (the HAPI hub and `opencode serve`), each with 5,000
 * sessions: cold start, idle memory, the session list's bytes and read time, and the console's first
 * visit on a phone. Helpers are in bench/lib/peers/.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { launchBenchBrowser, PHONE, type BenchBrowser } from "../lib/browser.ts";
import { installPeer } from "../lib/peers/install.ts";
import { visitConsole, type ConsoleVisit } from "../lib/peers/console.ts";
import { atriumServer, type BenchServer, HAPI_PACKAGE, hapiServer, OPENCODE_PACKAGE, opencodeServer } from "../lib/peers/servers.ts";
import { BROWSER_ENCODINGS, type FullList, launch, pinThisProcess, readFullList, timeFirstPage, treeRssBytes } from "../lib/peers/wire.ts";
import { LOAD_CPU, pinning, tempDir } from "../lib/processes.ts";
import type { Figure, MeasurementResult, Target } from "../lib/report.ts";
import { median } from "../lib/stats.ts";

const SESSIONS = 5_000;
const PROJECTS = 20;
const ROUNDS = 3;
/** Long enough for seeding garbage to be collected and the server to sit idle. */
const RSS_SETTLE_MS = 2_000;
const WARMUP_READS = 20;
const READS = 200;
/** Per server and round: an unmeasured first visit (the server's first serving of its files), then these. */
const WARMUP_VISITS = 1;
const VISITS = 2;

/** The issue's targets. ≤ 0.5 is checked as < 0.5: the report knows only < and >=. */
const HALF: Target = { comparison: "<", value: 0.5 };
const FIRST_ROWS_TARGET: Target = { comparison: "<", value: 300 };
const COLD_START_TARGET: Target = { comparison: "<", value: 50 };

interface Collected {
  coldStartMs: number[];
  rssBytes: number;
  seedSeconds: number;
  fullLists: FullList[];
  firstPageMs: number[];
  visits: ConsoleVisit[];
  /** Why a figure is missing. */
  problems: string[];
}

/**
 * 20 git repositories with one commit each, a different one: opencode names a project after its
 * repository's first commit, so identical ones would make a single project. The others take the paths.
 */
function makeProjects(dir: string): string[] {
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" };
  return Array.from({ length: PROJECTS }, (_, index) => {
    const path = join(dir, `project-${String(index + 1).padStart(2, "0")}`);
    mkdirSync(path, { recursive: true });
    for (const args of [
      ["init", "-q"],
      ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "--allow-empty", "-m", `start ${path}`],
    ]) {
      const result = Bun.spawnSync(["git", ...args], { cwd: path, env, stderr: "pipe" });
      if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
    }
    return path;
  });
}

const message = (error: unknown) => (error instanceof Error ? error.message.split("\n")[0]! : String(error));

/** Runs one figure's work; a failure is noted and leaves the other figures standing. */
async function attempt(into: Collected, what: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    into.problems.push(`${what}: ${message(error)}`);
  }
}

async function seedServer(server: BenchServer, projects: string[], logDir: string, into: Collected): Promise<void> {
  const first = await launch(server, server.healthPath, {}, logDir);
  try {
    await server.signIn(first.base);
    const started = performance.now();
    await server.seed(first.base, SESSIONS, projects);
    into.seedSeconds = (performance.now() - started) / 1000;
    await Bun.sleep(RSS_SETTLE_MS);
    into.rssBytes = treeRssBytes(first.pid);
  } finally {
    await first.stop();
  }
}

async function measureRound(server: BenchServer, browser: BenchBrowser, logDir: string, into: Collected): Promise<void> {
  const launched = await launch(server, server.firstPagePath, server.headers(), logDir);
  try {
    into.coldStartMs.push(launched.readyMs);
    await attempt(into, "full list", async () => {
      const list = await readFullList(server, launched.base);
      if (list.records !== SESSIONS) throw new Error(`the full list held ${list.records} sessions, not ${SESSIONS}`);
      into.fullLists.push(list);
    });
    await attempt(into, "first page", async () => {
      into.firstPageMs.push(...(await timeFirstPage(server, launched.base, WARMUP_READS, READS)));
    });
    await attempt(into, "console", async () => {
      for (let visit = 0; visit < WARMUP_VISITS + VISITS; visit++) {
        const result = await visitConsole(browser, server, launched.base, PHONE);
        if (visit >= WARMUP_VISITS) into.visits.push(result);
      }
    });
  } finally {
    await launched.stop();
  }
}

/** The median of what was seen, NaN (printed n/a) when nothing was. */
function medianOf(values: (number | null)[]): number {
  const seen = values.filter((value): value is number => value !== null && Number.isFinite(value));
  return seen.length > 0 ? median(seen) : Number.NaN;
}

interface Figures {
  coldStartMs: number;
  rssMiB: number;
  fullEncodedKiB: number;
  fullDecodedKiB: number;
  bytesPerSession: number;
  firstPageP50Ms: number;
  consoleKiB: number;
  firstRowsMs: number;
  extraListRequests: number;
  lastListMs: number;
}

function figuresOf(collected: Collected): Figures {
  const lists = collected.fullLists;
  const paints = collected.visits.map((visit) => visit.firstRowsPaintMs);
  return {
    coldStartMs: medianOf(collected.coldStartMs),
    rssMiB: collected.rssBytes / 2 ** 20,
    fullEncodedKiB: medianOf(lists.map((list) => list.encodedBytes)) / 1024,
    fullDecodedKiB: medianOf(lists.map((list) => list.decodedBytes)) / 1024,
    bytesPerSession: medianOf(lists.map((list) => list.decodedBytes / list.records)),
    firstPageP50Ms: median(collected.firstPageMs),
    consoleKiB: medianOf(collected.visits.map((visit) => visit.encodedBytes)) / 1024,
    // A visit that never showed rows leaves the figure null rather than faster.
    firstRowsMs: paints.includes(null) ? Number.NaN : medianOf(paints),
    extraListRequests: medianOf(collected.visits.map((visit) => visit.listRequests - 1)),
    lastListMs: medianOf(collected.visits.map((visit) => visit.lastListResponseMs)),
  };
}

const FIGURES: { key: keyof Figures; label: string; unit: Figure["unit"] }[] = [
  { key: "coldStartMs", label: "cold start, spawn to first list answer, median", unit: "ms" },
  { key: "rssMiB", label: "idle RSS after seeding", unit: "MiB" },
  { key: "fullEncodedKiB", label: "full list of 5,000 on the wire (encoded)", unit: "KiB" },
  { key: "fullDecodedKiB", label: "full list, decoded JSON", unit: "KiB" },
  { key: "bytesPerSession", label: "decoded JSON bytes per session", unit: "ratio" },
  { key: "firstPageP50Ms", label: "first page of 50, p50", unit: "ms" },
  { key: "consoleKiB", label: "console first visit, encoded bytes", unit: "KiB" },
  { key: "firstRowsMs", label: "console first rows painted, median", unit: "ms" },
  { key: "extraListRequests", label: "console list requests after the first, median", unit: "requests" },
  { key: "lastListMs", label: "console last list response, median", unit: "ms" },
];

function report(figures: Map<string, Figures>): Figure[] {
  const atrium = figures.get("Atrium")!;
  const peers = [...figures].filter(([name]) => name !== "Atrium");
  const rows: Figure[] = [];
  for (const [name, of] of figures) {
    for (const { key, label, unit } of FIGURES) {
      const target = name !== "Atrium" ? undefined : key === "coldStartMs" ? COLD_START_TARGET : key === "firstRowsMs" ? FIRST_ROWS_TARGET : undefined;
      rows.push({ label: `${name}: ${label}`, value: of[key], unit, ...(target ? { target } : {}) });
    }
  }
  for (const [name, of] of peers) {
    for (const { key, label } of FIGURES) {
      const target = name === "HAPI" && key === "lastListMs" ? HALF : undefined;
      rows.push({ label: `Atrium/${name}: ${label}`, value: atrium[key] / of[key], unit: "ratio", ...(target ? { target } : {}) });
    }
  }
  const smallest = (key: keyof Figures) => Math.min(...peers.map(([, of]) => (Number.isFinite(of[key]) ? of[key] : Number.POSITIVE_INFINITY)));
  rows.push({ label: "Atrium/min(peers): full list on the wire", value: atrium.fullEncodedKiB / smallest("fullEncodedKiB"), unit: "ratio", target: HALF });
  rows.push({ label: "Atrium/min(peers): console first-visit bytes", value: atrium.consoleKiB / smallest("consoleKiB"), unit: "ratio", target: HALF });
  return rows;
}

export async function measurePeers(binary: string, log: (line: string) => void = console.log): Promise<MeasurementResult> {
  const run = tempDir("peers");
  let browser: BenchBrowser | undefined;
  try {
    const installStarted = performance.now();
    const hapi = await installPeer(HAPI_PACKAGE, join(run, "install"));
    const opencode = await installPeer(OPENCODE_PACKAGE, join(run, "install"));
    const installed =
      hapi.fromCache && opencode.fromCache ? "both from the cache" : `installed in ${((performance.now() - installStarted) / 1000).toFixed(0)} s`;
    log(`  peers: ${installed}`);
    const projects = makeProjects(join(run, "projects"));
    const servers = [
      atriumServer(binary, join(run, "atrium")),
      hapiServer(hapi.binary, join(run, "hapi")),
      opencodeServer(opencode.binary, join(run, "opencode")),
    ];
    const collected = new Map<string, Collected>(
      servers.map((server) => [
        server.name,
        { coldStartMs: [], rssBytes: Number.NaN, seedSeconds: Number.NaN, fullLists: [], firstPageMs: [], visits: [], problems: [] },
      ]),
    );
    const seeded: BenchServer[] = [];
    for (const server of servers) {
      const into = collected.get(server.name)!;
      await attempt(into, "seeding", () => seedServer(server, projects, run, into));
      if (Number.isFinite(into.seedSeconds)) seeded.push(server);
      log(`  ${server.name}: ${SESSIONS} sessions in ${into.seedSeconds.toFixed(1)} s`);
    }
    if (!seeded.some((server) => server.name === "Atrium")) throw new Error(collected.get("Atrium")!.problems.join("; "));
    // The client side (this process's requests, Chromium) on the load CPU from here on; servers on theirs.
    const unpin = pinThisProcess(LOAD_CPU);
    try {
      browser = await launchBenchBrowser();
      for (let round = 0; round < ROUNDS; round++) {
        for (const server of seeded) {
          const into = collected.get(server.name)!;
          await attempt(into, "start", () => measureRound(server, browser!, run, into));
        }
        log(`  round ${round + 1} of ${ROUNDS} done`);
      }
    } finally {
      unpin();
    }
    const figures = new Map([...collected].map(([name, each]) => [name, figuresOf(each)]));
    const problems = [...collected].flatMap(([name, each]) => [...new Set(each.problems)].map((problem) => `${name} ${problem}`));
    const listShape = [...collected].map(([name, each]) => {
      const list = each.fullLists[0];
      return list ? `${name} ${list.requests} request(s), ${[...new Set(list.encodings)].join("/")}` : `${name} none`;
    });
    return {
      method:
        `HAPI hub ${HAPI_PACKAGE.version} (npm ${HAPI_PACKAGE.name}, its ${"`hapi hub --no-relay`"} run as the platform binary its bin execs) and ` +
        `${"`opencode serve`"} ${OPENCODE_PACKAGE.version} (npm ${OPENCODE_PACKAGE.name}) installed with ${"`npm install --prefix`"} into a temp folder ` +
        `and kept in ~/.cache/atrium-bench-peers/<pkg>@<version>, so a later run reinstalls nothing (this run: ${installed}). ` +
        `Offline: each peer's HOME, XDG dirs and TMPDIR are temp dirs; HAPI with its relay tunnel off, iOS push off and its push relay URL ` +
        `a closed port; opencode with OPENCODE_DISABLE_AUTOUPDATE, _MODELS_FETCH, _LSP_DOWNLOAD, _SHARE, _DEFAULT_PLUGINS, _EXTERNAL_SKILLS, ` +
        `_CLAUDE_CODE and OPENCODE_PURE, its config dir laid out so that its background npm install of @opencode-ai/plugin is skipped, and ` +
        `npm's registry a closed port should it try; no password, so its API and web app need no sign-in. ` +
        `${SESSIONS.toLocaleString("en-US")} sessions titled "Session N" over ${PROJECTS} projects, all through HTTP: Atrium echo sessions in ` +
        `scratch projects (POST /v1/projects, /v1/sessions); HAPI through POST /cli/sessions with the CLI's token and the metadata its CLI ` +
        `sends, paths being ${PROJECTS} directories; opencode through POST /session?directory= into ${PROJECTS} git repositories (one project ` +
        `each). Idle RSS ${RSS_SETTLE_MS / 1000} s after seeding (the server and any children). Then ${ROUNDS} rounds, the servers in turn, ` +
        `each restarted on its seeded data: cold start = spawn to the first 200 of its first-page request polled back to back (a new one every 10 ms while earlier ones go ` +
        `unanswered: opencode accepts connections before it prints that it listens and never answers a request that came that early); the full list ` +
        `read with node:http (Accept-Encoding: ${BROWSER_ENCODINGS}), counting the body as sent and as decoded JSON, paged as each one's ` +
        `own client pages (${listShape.join("; ")}): Atrium GET /v1/sessions?limit=200 following Link rel="next"; HAPI GET /api/sessions, ` +
        `which answers {sessions:[…]} with every session's summary at once (its web app asks that; ?limit=N only truncates); opencode GET ` +
        `/api/session?limit=5000&order=desc, answering {data:[…],cursor:{previous,next}}, followed with the cursor while a page comes back full, ` +
        `as its web app does. First page = Atrium /v1/sessions?limit=50, HAPI /api/sessions?limit=50, opencode /api/session?limit=50&order=desc: ` +
        `${READS} sequential reads after ${WARMUP_READS}, per round. Console: Debian's headless Chromium at ${PHONE.width}×${PHONE.height}, ` +
        `a fresh context per visit, ${VISITS} visits per round after ${WARMUP_VISITS} unmeasured; signed in as a returning visitor is ` +
        `(Atrium's token, HAPI's access token in localStorage; for opencode its ${PROJECTS} projects open in its localStorage, without which ` +
        `its home lists no session); bytes = every response's encodedDataLength (Playwright request.sizes(), service-worker fetches ` +
        `included) until no request started or ended for 1 s; first rows = the frame (Element Timing of a marker added with them) that first ` +
        `held Atrium's .session-row, HAPI's first directory group (its list shows collapsed directory rows with counts), opencode's ` +
        `home-session-row (its home shows at most 64 rows); list requests counted by path (Atrium /v1/sessions, HAPI /api/sessions, opencode ` +
        `/session or /api/session); last list response from resource timing. Times are ms from navigation start. Servers on CPU 0, this ` +
        `process and Chromium on CPU 1; ${pinning}. "Bytes per session" is in bytes (the report has no byte unit).` +
        (problems.length > 0 ? ` Missing figures: ${problems.join("; ")}.` : ""),
      figures: report(figures),
      details: {
        sessions: SESSIONS,
        projects: PROJECTS,
        rounds: ROUNDS,
        peers: { hapi: HAPI_PACKAGE, opencode: OPENCODE_PACKAGE },
        servers: Object.fromEntries([...collected].map(([name, each]) => [name, { ...each, figures: figures.get(name) }])),
      },
    };
  } finally {
    await browser?.close();
    rmSync(run, { recursive: true, force: true });
  }
}

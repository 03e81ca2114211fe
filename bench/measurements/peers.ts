/**
 * Atrium against two peers installed from npm (the HAPI hub and `opencode serve`), each with 5,000
 * sessions: cold start, idle memory, the session list's bytes and read time, and the console's first
 * visit on a phone. Helpers are in bench/lib/peers/. A peer that cannot be installed, seeded or read
 * leaves its figures, and every ratio to it, n/a.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { timedGet } from "../lib/atrium.ts";
import { git } from "../lib/git-repository.ts";
import { PHONE, type BenchBrowser } from "../lib/browser.ts";
import { measurement } from "../lib/measurement.ts";
import { visitConsole } from "../lib/peers/console.ts";
import { installPeer } from "../lib/peers/install.ts";
import { atriumServer, type BenchServer, HAPI_PACKAGE, hapiServer, OPENCODE_PACKAGE, opencodeServer } from "../lib/peers/servers.ts";
import { BROWSER_ENCODINGS, readFullList, treeRssBytes } from "../lib/peers/wire.ts";
import { LOAD_CPU, SERVER_CPU, freePort, launch, onCpu, pinThisProcess, type Launched } from "../lib/processes.ts";
import { below, type Figure, type Target } from "../lib/report.ts";
import { median, medianOf, ratio, smallest } from "../lib/stats.ts";

const SESSIONS = 5_000;
const PROJECTS = 20;
/** ≤ 0.5 is checked as < 0.5: the report knows only < and >=. */
const HALF = below(0.5);

interface Peer {
  name: string;
  server?: BenchServer;
  rssBytes: number;
  /** Why it has no figures (not installed, not seeded, a round failed), when it has none. */
  missing?: string;
}

type World = { dir: string; browser: BenchBrowser };

/**
 * 20 git repositories with one commit each, a different one: opencode names a project after its
 * repository's first commit, so identical ones would make a single project. The others take the paths.
 */
function makeProjects(dir: string): string[] {
  const env = { HOME: dir, GIT_CONFIG_NOSYSTEM: "1" };
  return Array.from({ length: PROJECTS }, (_, index) => {
    const path = join(dir, `project-${String(index + 1).padStart(2, "0")}`);
    mkdirSync(path, { recursive: true });
    git(["init", "-q"], path, undefined, env);
    git(["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "--allow-empty", "-m", `start ${path}`], path, undefined, env);
    return path;
  });
}

/** A server pinned to the server CPU on a port of its own, ready once `path` answers 200 (polled back to back); cwd not the repository: opencode takes it as a project. */
function start(server: BenchServer, dir: string, path: string, headers: Record<string, string>): Promise<Launched> {
  const port = freePort();
  const poll = { url: `http://127.0.0.1:${port}${path}`, headers };
  return launch({ command: onCpu(SERVER_CPU, server.command(port)), env: server.env(port), cwd: dir, poll, timeoutMs: 60_000 });
}

/** The first start: signed in, seeded through HTTP, its idle RSS 2 s after. */
async function seedServer(name: string, make: () => Promise<BenchServer>, projects: string[], dir: string): Promise<Peer> {
  try {
    const server = await make();
    const first = await start(server, dir, server.healthPath, {});
    try {
      await server.signIn(first.url);
      await server.seed(first.url, SESSIONS, projects);
      await Bun.sleep(2_000);
      return { name, server, rssBytes: treeRssBytes(first.pid) };
    } finally {
      await first.stop();
    }
  } catch (error) {
    return { name, rssBytes: Number.NaN, missing: error instanceof Error ? error.message : String(error) };
  }
}

/** The server restarted on its seeded data: cold start, the full list, 200 first pages after 20, then 2 console visits after 1. */
async function measureRound(peer: Peer, world: World) {
  const server = peer.server!;
  const launched = await start(server, world.dir, server.firstPagePath, server.headers());
  try {
    const list = await readFullList(server, launched.url);
    if (list.records !== SESSIONS) throw new Error(`the full list held ${list.records} sessions, not ${SESSIONS}`);
    const headers = { ...server.headers(), "accept-encoding": BROWSER_ENCODINGS };
    const times = await Array.fromAsync({ length: 220 }, async () => (await timedGet(launched.url, headers, server.firstPagePath)).ms);
    const visits = [];
    for (let visit = 0; visit < 3; visit++) visits.push(await visitConsole(world.browser, server, launched.url, PHONE));
    return { coldStartMs: launched.readyMs, list, firstPageP50Ms: median(times.slice(20)), visits: visits.slice(1) };
  } finally {
    await launched.stop();
  }
}

type Round = Awaited<ReturnType<typeof measureRound>>;

/** The median over every measured visit of one of its figures. */
const visits = (pick: (visit: Round["visits"][number]) => number | null) => (rounds: Round[]) => median(rounds.flatMap((round) => round.visits.map(pick)));

const FIGURES: { key: string; label: string; unit: Figure["unit"]; of(rounds: Round[], peer: Peer): number }[] = [
  { key: "cold", label: "cold start, spawn to first list answer, median", unit: "ms", of: (rounds) => medianOf(rounds, (r) => r.coldStartMs) },
  { key: "rss", label: "idle RSS after seeding", unit: "MiB", of: (_rounds, peer) => peer.rssBytes / 2 ** 20 },
  { key: "list", label: "full list of 5,000 on the wire (encoded)", unit: "KiB", of: (rounds) => medianOf(rounds, (r) => r.list.encodedBytes / 1024) },
  { key: "decoded", label: "full list, decoded JSON", unit: "KiB", of: (rounds) => medianOf(rounds, (r) => r.list.decodedBytes / 1024) },
  { key: "perSession", label: "decoded JSON per session", unit: "B", of: (rounds) => medianOf(rounds, (r) => r.list.decodedBytes / r.list.records) },
  { key: "firstPage", label: "first page of 50, p50", unit: "ms", of: (rounds) => medianOf(rounds, (r) => r.firstPageP50Ms) },
  { key: "console", label: "console first visit, encoded bytes", unit: "KiB", of: visits((v) => v.encodedBytes / 1024) },
  { key: "rows", label: "console first rows painted, median", unit: "ms", of: visits((v) => v.firstRowsPaintMs) },
  { key: "requests", label: "console list requests after the first, median", unit: "count", of: visits((v) => v.listRequests - 1) },
  { key: "lastList", label: "console last list response, median", unit: "ms", of: visits((v) => v.lastListResponseMs) },
];

const ATRIUM_TARGETS: Record<string, Target> = { cold: below(50), rows: below(300) };

export const peers = measurement({
  key: "peers",
  title: "Atrium vs HAPI hub and opencode serve, 5,000 sessions each",
  seed: {
    what:
      `HAPI hub ${HAPI_PACKAGE.version} (npm ${HAPI_PACKAGE.name}, its \`hapi hub --no-relay\` as the platform binary its bin execs) and ` +
      `\`opencode serve\` ${OPENCODE_PACKAGE.version} (npm ${OPENCODE_PACKAGE.name}) installed with npm into ~/.cache/atrium-bench-peers ` +
      "once; offline: each peer's HOME, XDG dirs and TMPDIR temp dirs, HAPI's relay, iOS push and push relay off, opencode's " +
      'downloads, updates, sharing and plugins off by its own flags (bench/lib/peers/servers.ts). 5,000 sessions titled "Session N" ' +
      "over 20 projects through each one's HTTP API (Atrium echo sessions; HAPI POST /cli/sessions as its CLI registers one; opencode " +
      "POST /session?directory= into 20 git repositories); idle RSS 2 s after. Then this process and Chromium on the load CPU.",
    async run(bench) {
      const dir = bench.tempDir("peers");
      const projects = makeProjects(join(dir, "projects"));
      const seeded = async (name: string, make: () => Promise<BenchServer>): Promise<Peer> => {
        const peer = await seedServer(name, make, projects, dir);
        bench.log(`  ${name}: ${peer.missing ? `n/a, ${peer.missing.split("\n")[0]}` : `${SESSIONS} sessions seeded`}`);
        return peer;
      };
      const atrium = await seeded("Atrium", async () => atriumServer(bench.binary, join(dir, "atrium")));
      if (atrium.missing) throw new Error(`Atrium could not be seeded: ${atrium.missing}`);
      const peers = [
        await seeded("HAPI", async () => hapiServer(await installPeer(HAPI_PACKAGE), join(dir, "hapi"))),
        await seeded("opencode", async () => opencodeServer(await installPeer(OPENCODE_PACKAGE), join(dir, "opencode"))),
      ];
      bench.defer(pinThisProcess(LOAD_CPU));
      const browser = await bench.browser();
      return { dir, browser, atrium, peers };
    },
  },
  action: {
    what:
      "Atrium restarted on its seeded data: cold start = spawn to the first 200 of its first page of 50, polled back to back; the full " +
      "list read with node:http as its own client pages it (GET /v1/sessions?limit=200 following Link), counted as sent and decoded; " +
      `200 sequential first pages after 20; the console's first visit at ${PHONE.width}×${PHONE.height} in a fresh context signed in as ` +
      "a returning visitor, 2 after 1 unmeasured: bytes = every response's encoded body until no request started or ended for 1 s, " +
      "first rows = the paint probe's frame holding the first list row, list requests by path, the last list response from Resource Timing.",
    run: (world) => measureRound(world.atrium, world),
  },
  baseline: {
    what:
      "HAPI and opencode measured the same way in the same round, the servers in turn: HAPI's GET /api/sessions (every session at " +
      "once, as its web app asks) and its first directory row; opencode's GET /api/session?limit=5000&order=desc followed with its " +
      "cursor, as its web app does, and its home-session-row (its 20 projects open in localStorage).",
    async run(world) {
      const rounds: (Round | undefined)[] = [];
      for (const peer of world.peers) {
        try {
          rounds.push(peer.missing ? undefined : await measureRound(peer, world));
        } catch (error) {
          peer.missing = error instanceof Error ? error.message : String(error);
          rounds.push(undefined);
        }
      }
      return rounds;
    },
  },
  rounds: { warmup: 0, measured: 3 },
  figures({ action, baseline }, world) {
    const figures: Figure[] = [];
    const peerRounds = world.peers.map((_, index) => baseline.map((round) => round[index]).filter((round) => round !== undefined));
    const valuesOf = (key: string) =>
      world.peers.map((peer, index) => (peer.missing ? Number.NaN : FIGURES.find((f) => f.key === key)!.of(peerRounds[index]!, peer)));
    for (const { key, label, unit, of } of FIGURES) {
      const atrium = of(action, world.atrium);
      figures.push({ label: `Atrium: ${label}`, value: atrium, unit, ...(ATRIUM_TARGETS[key] ? { target: ATRIUM_TARGETS[key] } : {}) });
      world.peers.forEach((peer, index) => {
        figures.push({ label: `${peer.name}: ${label}`, value: valuesOf(key)[index]!, unit });
        const target = peer.name === "HAPI" && key === "lastList" ? { target: HALF } : {};
        figures.push({ label: `Atrium/${peer.name}: ${label}`, value: ratio(atrium, valuesOf(key)[index]!), unit: "ratio", ...target });
      });
    }
    const toSmallest = (key: string) => ratio(FIGURES.find((f) => f.key === key)!.of(action, world.atrium), smallest(valuesOf(key)));
    figures.push({ label: "Atrium/min(peers): full list on the wire", value: toSmallest("list"), unit: "ratio", target: HALF });
    figures.push({ label: "Atrium/min(peers): console first-visit bytes", value: toSmallest("console"), unit: "ratio", target: HALF });
    for (const peer of world.peers.filter((p) => p.missing))
      figures.push({ label: `${peer.name} is n/a: ${peer.missing!.split("\n")[0]!.slice(0, 200)}`, value: Number.NaN, unit: "count" });
    return figures;
  },
});

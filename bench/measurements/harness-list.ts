import { chmodSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAtrium } from "../lib/atrium.ts";
import { pinning, tempDir } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { median, summarize } from "../lib/stats.ts";

/** How long every fake CLI takes before it answers: about what a Node-based CLI needs to start. */
const PROBE_DELAY_MS = 300;
const HARNESSES = ["claude", "codex", "gemini", "opencode", "qwen", "copilot", "goose", "echo"];
const WARMUP_RESCANS = 1;
const RESCANS = 10;
/** Each round of the list measurement is one GET /v1/harnesses and one GET /v1/health, in turn. */
const WARMUP_ROUNDS = 50;
const ROUNDS = 2000;
/**
 * Rounds start on this schedule rather than back to back: a round takes well under a millisecond, so
 * back to back all 2,000 would fit inside one rescan; spread out, they sample every phase of several.
 */
const ROUND_INTERVAL_MS = 2;
/** Runs of the probe commands straight from the benchmark, for the baselines. */
const DIRECT_RUNS = 5;
/** Bounds the list measurement, which needs about (WARMUP_ROUNDS + ROUNDS) * ROUND_INTERVAL_MS. */
const LIST_DEADLINE_MS = 60_000;
const TARGET_RESCAN_MS = 2_000;
const TARGET_LIST_P50_MS = 5;
/** Below this share of list answers given mid-scan, the list was not measured "while probes run". */
const MIN_MID_SCAN_PERCENT = 90;

const FIXTURES = join(import.meta.dir, "..", "..", "test", "fixtures", "fake-clis");

/** Qwen Code and Copilot CLI print their bare version and have no login command, like Gemini's fake. */
const EXTRA_FAKES: Record<string, string> = {
  qwen: '#!/bin/sh\n[ "$1" = "--version" ] && { echo "0.0.14"; exit 0; }\necho "unknown command: $*" >&2; exit 2\n',
  copilot: '#!/bin/sh\n[ "$1" = "--version" ] && { echo "0.0.339"; exit 0; }\necho "unknown command: $*" >&2; exit 2\n',
};

/**
 * After each rescan the server asks `npm view <package> version` for the latest versions, in the
 * background (cached for hours). This npm answers at once, so that the benchmark neither reaches the
 * registry nor has six npm processes compete with the server for its CPU during the first rescans.
 */
const FAKE_NPM = '#!/bin/sh\n[ "$1" = "view" ] && { echo "1.0.0"; exit 0; }\necho "npm error unknown command: $*" >&2; exit 1\n';

/**
 * The commands a rescan runs, per harness, in the order it runs them (echo runs none). Claude's two
 * are the longest chain, so they are the floor a parallel scan can reach.
 */
const PROBE_COMMANDS: string[][] = [
  ["claude", "--version"],
  ["claude", "auth", "status", "--json"],
  ["codex", "--version"],
  ["codex", "login", "status"],
  ["gemini", "--version"],
  ["opencode", "--version"],
  ["qwen", "--version"],
  ["copilot", "--version"],
  ["goose", "--version"],
];
const LONGEST_CHAIN = PROBE_COMMANDS.slice(0, 2);

interface HarnessView {
  id: string;
  readiness: { state: string; path: string | null; version: string | null };
  auth: { state: string };
}

/**
 * The test fixtures' fake CLIs plus Qwen and Copilot fakes, each sleeping PROBE_DELAY_MS before it
 * answers anything, and the instant npm, in `dir`; and a home where Claude and Codex are logged in,
 * so that their status commands take the logged-in path.
 */
function writeFakes(dir: string, home: string): void {
  const scripts: Record<string, string> = { ...EXTRA_FAKES };
  for (const name of ["claude", "codex", "gemini", "opencode", "goose"]) {
    scripts[name] = readFileSync(join(FIXTURES, name), "utf8");
  }
  for (const [name, script] of Object.entries(scripts)) {
    const [shebang, ...rest] = script.split("\n");
    const path = join(dir, name);
    writeFileSync(path, [shebang, `sleep ${PROBE_DELAY_MS / 1000}`, ...rest].join("\n"));
    chmodSync(path, 0o755);
  }
  writeFileSync(join(dir, "npm"), FAKE_NPM);
  chmodSync(join(dir, "npm"), 0o755);
  // Claude Code and Codex are ready only with their ACP adapters, which are never run to ask a
  // version (it is read from their npm packages): the fixtures' fake adapters, linked as npm links them.
  for (const adapter of ["claude-agent-acp", "codex-acp"]) symlinkSync(realpathSync(join(FIXTURES, adapter)), join(dir, adapter));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", ".credentials.json"), "{}\n");
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(join(home, ".codex", "auth.json"), "{}\n");
}

/** Wall time of `commands` run one after another, as the server runs them: no shell, output read. */
async function runInTurn(commands: string[][], dir: string, env: Record<string, string | undefined>): Promise<number> {
  const started = performance.now();
  for (const [name, ...args] of commands) {
    const child = Bun.spawn([join(dir, name!), ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  }
  return performance.now() - started;
}

/**
 * How many harnesses a rescan found ready, from our fakes (echo is built in), with a version and its
 * login read. Fewer than all means the rescan skipped probes and its time flatters the server.
 */
function readyFromFakes(harnesses: HarnessView[], fakes: string): number {
  const ids = harnesses.map((harness) => harness.id).join(",");
  if (ids !== HARNESSES.join(",")) throw new Error(`the rescan listed ${ids}, not ${HARNESSES.join(",")}`);
  return harnesses.filter(({ id, readiness, auth }) => {
    const fromFake = id === "echo" || readiness.path?.startsWith(`${fakes}/`) === true;
    return readiness.state === "ready" && readiness.version !== null && fromFake && auth.state !== "checking";
  }).length;
}

/**
 * The compiled server with fake CLIs first on its PATH, each taking PROBE_DELAY_MS to answer. First
 * sequential POST /v1/harnesses/rescan, timed; then GET /v1/harnesses and GET /v1/health in turn, a
 * round every ROUND_INTERVAL_MS, while the benchmark keeps a rescan in flight the whole time. Each GET
 * is timed from sending to the last byte of the body, read as bytes; whether the list was answered
 * mid-scan is read from it afterwards, outside the timing.
 */
export async function measureHarnessList(binary: string): Promise<MeasurementResult> {
  const fakes = tempDir("fake-clis");
  const home = tempDir("user-home");
  writeFakes(fakes, home);
  const env = {
    PATH: `${fakes}:${process.env.PATH ?? ""}`,
    HOME: home,
    // Set, so that the fakes cannot read a real login from the benchmark's own environment.
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
  };
  const atrium = await startAtrium(binary, env);
  const headers = { authorization: `Bearer ${atrium.token}` };
  const base = atrium.server.url;
  const rescan = async (): Promise<HarnessView[]> => {
    const response = await fetch(`${base}/v1/harnesses/rescan`, { method: "POST", headers });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`POST /v1/harnesses/rescan answered ${response.status}: ${body}`);
    return JSON.parse(body) as HarnessView[];
  };
  const get = async (path: string): Promise<{ ms: number; body: ArrayBuffer }> => {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers });
    const body = await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return { ms, body };
  };
  try {
    // The first of these also waits for the scan the server starts by itself.
    for (let i = 0; i < WARMUP_RESCANS; i++) await rescan();
    // With the server idle, the same commands straight from here: the floor and the serial sum.
    const childEnv = { ...process.env, ...env };
    const chainRuns: number[] = [];
    const serialRuns: number[] = [];
    for (let i = 0; i < DIRECT_RUNS; i++) {
      chainRuns.push(await runInTurn(LONGEST_CHAIN, fakes, childEnv));
      serialRuns.push(await runInTurn(PROBE_COMMANDS, fakes, childEnv));
    }
    const chainMs = median(chainRuns);
    const serialMs = median(serialRuns);
    const rescanTimings: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < RESCANS; i++) {
      const started = performance.now();
      const harnesses = await rescan();
      rescanTimings.push(performance.now() - started);
      ready.push(readyFromFakes(harnesses, fakes));
    }

    let stopped = false;
    let failure: unknown;
    let backgroundRescans = 0;
    const background = (async () => {
      while (!stopped) {
        await rescan();
        backgroundRescans++;
      }
    })().catch((error: unknown) => (failure = error));
    const listTimings: number[] = [];
    const healthTimings: number[] = [];
    let midScan = 0;
    let bytes = 0;
    const decoder = new TextDecoder();
    const start = performance.now();
    try {
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        if (failure !== undefined) throw failure;
        const now = performance.now();
        if (now - start > LIST_DEADLINE_MS) throw new Error(`${round} rounds of GETs took longer than ${LIST_DEADLINE_MS} ms`);
        // A round that starts late (the previous one ran over) starts at once; none is skipped.
        const slot = start + round * ROUND_INTERVAL_MS;
        if (slot > now) await Bun.sleep(slot - now);
        // Alternating which goes first, so neither always follows the other.
        const listFirst = round % 2 === 0;
        const first = await get(listFirst ? "/v1/harnesses" : "/v1/health");
        const second = await get(listFirst ? "/v1/health" : "/v1/harnesses");
        const [list, health] = listFirst ? [first, second] : [second, first];
        if (round < WARMUP_ROUNDS) continue;
        listTimings.push(list.ms);
        healthTimings.push(health.ms);
        bytes = list.body.byteLength;
        // A harness whose login is "checking" means the server answered in the middle of a scan.
        const harnesses = JSON.parse(decoder.decode(list.body)) as HarnessView[];
        if (harnesses.some((harness) => harness.auth.state === "checking")) midScan++;
      }
    } finally {
      stopped = true;
      await background;
    }
    if (failure !== undefined) throw failure;

    const rescans = summarize(rescanTimings);
    const listLatency = summarize(listTimings);
    const healthLatency = summarize(healthTimings);
    return {
      method:
        `${HARNESSES.length} harnesses, 7 of them fake CLIs first on the server's PATH that sleep ${PROBE_DELAY_MS} ms before ` +
        `answering (9 probe commands); ${RESCANS} sequential POST /v1/harnesses/rescan after ${WARMUP_RESCANS} unmeasured, ` +
        `against Claude's version + login commands run one after another straight from the benchmark (median of ` +
        `${DIRECT_RUNS}); then, with rescans kept in flight back to back, ${ROUNDS} rounds of one GET /v1/harnesses and one ` +
        `GET /v1/health in turn, one round every ${ROUND_INTERVAL_MS} ms, after ${WARMUP_ROUNDS} unmeasured, each timed to the ` +
        `last byte; ${pinning}.`,
      figures: [
        {
          label: "harnesses ready after every rescan",
          value: Math.min(...ready),
          unit: "harnesses",
          target: { comparison: ">=", value: HARNESSES.length },
        },
        { label: "rescan p50", value: rescans.p50, unit: "ms", target: { comparison: "<", value: TARGET_RESCAN_MS } },
        { label: "rescan max", value: rescans.max, unit: "ms", target: { comparison: "<", value: TARGET_RESCAN_MS } },
        { label: "longest probe chain run directly (claude version + login)", value: chainMs, unit: "ms" },
        { label: "all 9 probe commands run one after another", value: serialMs, unit: "ms" },
        { label: "ratio rescan p50 / longest chain (1 = fully parallel)", value: rescans.p50 / chainMs, unit: "ratio" },
        {
          label: "list answers given mid-scan",
          value: (midScan / ROUNDS) * 100,
          unit: "%",
          target: { comparison: ">=", value: MIN_MID_SCAN_PERCENT },
        },
        { label: "list p50 during rescans", value: listLatency.p50, unit: "ms", target: { comparison: "<", value: TARGET_LIST_P50_MS } },
        { label: "list p99 during rescans", value: listLatency.p99, unit: "ms" },
        { label: "health p50, same rounds (baseline)", value: healthLatency.p50, unit: "ms" },
        { label: "health p99, same rounds", value: healthLatency.p99, unit: "ms" },
        { label: "ratio list p50 / health p50", value: listLatency.p50 / healthLatency.p50, unit: "ratio" },
        { label: "rescans completed meanwhile", value: backgroundRescans, unit: "runs" },
        { label: "list body size", value: bytes / 1024, unit: "KiB" },
      ],
      details: {
        probeDelayMs: PROBE_DELAY_MS,
        harnesses: HARNESSES,
        probeCommands: PROBE_COMMANDS.map((command) => command.join(" ")),
        longestChainRunsMs: chainRuns,
        serialRunsMs: serialRuns,
        rescans,
        rescanTimingsMs: rescanTimings,
        readyAfterEachRescan: ready,
        warmupRounds: WARMUP_ROUNDS,
        rounds: ROUNDS,
        roundIntervalMs: ROUND_INTERVAL_MS,
        listLatency,
        healthLatency,
        listAnswersMidScan: midScan,
        backgroundRescans,
        listBodyBytes: bytes,
      },
    };
  } finally {
    await atrium.stop();
    rmSync(fakes, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

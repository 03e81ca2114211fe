import { chmodSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Atrium } from "../lib/atrium.ts";
import { measurement } from "../lib/measurement.ts";
import { onSchedule, repeatUntilStopped } from "../lib/processes.ts";
import { atLeast, below } from "../lib/report.ts";
import { median, medianOf, ratio, summarize, timed } from "../lib/stats.ts";

/** How long every fake CLI takes before it answers: about what a Node-based CLI needs to start. */
const PROBE_DELAY_MS = 300;
const HARNESSES = ["claude", "codex", "gemini", "opencode", "qwen", "copilot", "goose", "echo"];
/** A round is one GET /v1/harnesses and one GET /v1/health, this far apart, so that they sample every phase of several rescans. */
const ROUND_INTERVAL_MS = 2;
const LIST_ROUNDS = 2_000;
const FIXTURES = join(import.meta.dir, "..", "..", "test", "fixtures", "fake-clis");
/** The commands a rescan runs, in its order (echo runs none); Claude's two are the longest chain, the floor of a parallel scan. */
const PROBE_COMMANDS = [
  ["claude", "--version"],
  ["claude", "auth", "status", "--json"],
  ["codex", "--version"],
  ["codex", "login", "status"],
  ...["gemini", "opencode", "qwen", "copilot", "goose"].map((name) => [name, "--version"]),
];

interface HarnessView {
  id: string;
  readiness: { state: string; path: string | null; version: string | null };
  auth: { state: string };
}

/**
 * The test fixtures' fake CLIs, plus Qwen and Copilot fakes that print a bare version like Gemini's,
 * each sleeping PROBE_DELAY_MS before it answers; the fixtures' fake ACP adapters linked as npm links
 * them; and a home where Claude and Codex are logged in, so that their status commands take that path.
 */
function writeFakes(dir: string, home: string): void {
  const bareVersion = (version: string) => `#!/bin/sh\n[ "$1" = "--version" ] && { echo "${version}"; exit 0; }\necho "unknown command: $*" >&2; exit 2\n`;
  const scripts: Record<string, string> = { qwen: bareVersion("0.0.14"), copilot: bareVersion("0.0.339") };
  for (const name of ["claude", "codex", "gemini", "opencode", "goose"]) scripts[name] = readFileSync(join(FIXTURES, name), "utf8");
  for (const [name, script] of Object.entries(scripts)) {
    const [shebang, ...rest] = script.split("\n");
    writeFileSync(join(dir, name), [shebang, `sleep ${PROBE_DELAY_MS / 1000}`, ...rest].join("\n"));
    chmodSync(join(dir, name), 0o755);
  }
  for (const adapter of ["claude-agent-acp", "codex-acp"]) symlinkSync(realpathSync(join(FIXTURES, adapter)), join(dir, adapter));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", ".credentials.json"), "{}\n");
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(join(home, ".codex", "auth.json"), "{}\n");
}

const rescan = (atrium: Atrium) => atrium.call<HarnessView[]>(200, "POST", "/v1/harnesses/rescan");

/**
 * How many harnesses a rescan found ready from our fakes (echo is built in), with a version and its
 * login read: fewer than all means it skipped probes, and its time flatters the server.
 */
function readyFromFakes(harnesses: HarnessView[], fakes: string): number {
  if (harnesses.map((harness) => harness.id).join() !== HARNESSES.join()) throw new Error(`the rescan listed ${harnesses.map((h) => h.id).join()}`);
  return harnesses.filter(
    ({ id, readiness, auth }) =>
      readiness.state === "ready" && readiness.version !== null && auth.state !== "checking" && (id === "echo" || readiness.path?.startsWith(`${fakes}/`)),
  ).length;
}

/** GET /v1/harnesses and GET /v1/health in turn (which goes first alternates), a round every ROUND_INTERVAL_MS, while rescans run back to back. */
async function listWhileScanning(atrium: Atrium) {
  let rescans = 0;
  const stopScanning = repeatUntilStopped(async () => {
    await rescan(atrium);
    rescans++;
  });
  const list: number[] = [];
  const health: number[] = [];
  let midScan = 0;
  let listKiB = 0;
  try {
    await onSchedule(LIST_ROUNDS, ROUND_INTERVAL_MS, async (round) => {
      const order = round % 2 === 0 ? ["/v1/harnesses", "/v1/health"] : ["/v1/health", "/v1/harnesses"];
      for (const path of order) {
        const { ms, body } = await atrium.get(path);
        if (path === "/v1/health") health.push(ms);
        else {
          list.push(ms);
          listKiB = body.byteLength / 1024;
          // A harness whose login is "checking" means the server answered in the middle of a scan.
          if ((JSON.parse(new TextDecoder().decode(body)) as HarnessView[]).some((harness) => harness.auth.state === "checking")) midScan++;
        }
      }
    });
  } finally {
    await stopScanning();
  }
  return { list: summarize(list), health: summarize(health), midScanPercent: (midScan / LIST_ROUNDS) * 100, rescans, listKiB };
}

/** Wall time of `commands` run one after another, as the server runs them: no shell, output read. */
async function runInTurn(commands: string[][], world: { fakes: string; env: Record<string, string> }): Promise<number> {
  const { ms } = await timed(async () => {
    for (const [name, ...args] of commands) {
      const child = Bun.spawn([join(world.fakes, name!), ...args], { env: { ...process.env, ...world.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    }
  });
  return ms;
}

export const harnessList = measurement({
  key: "harnesses",
  title: "Harness rescan and GET /v1/harnesses",
  seed: {
    what:
      `8 harnesses: 7 fake CLIs first on the server's PATH that sleep ${PROBE_DELAY_MS} ms before answering (9 probe commands: 7 ` +
      "versions, Claude's and Codex's logins), echo built in; the server offline by its config, its first scan waited for.",
    async run(bench) {
      const fakes = bench.tempDir("fake-clis");
      const home = bench.tempDir("user-home");
      writeFakes(fakes, home);
      // CLAUDE_CONFIG_DIR and CODEX_HOME set, so that the fakes cannot read a real login from the benchmark's own environment.
      const env = { PATH: `${fakes}:${process.env.PATH ?? ""}`, HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), CODEX_HOME: join(home, ".codex") };
      const atrium = await bench.atrium({ env, config: {} });
      await rescan(atrium);
      return { atrium, fakes, env };
    },
  },
  action: {
    what:
      `10 sequential POST /v1/harnesses/rescan, each timed to the last byte and checked to list all 8 ready from the fakes; then, ` +
      `with rescans kept in flight back to back, ${LIST_ROUNDS.toLocaleString("en-US")} rounds of GET /v1/harnesses and GET /v1/health ` +
      `in turn, one every ${ROUND_INTERVAL_MS} ms, each timed to the last byte (whether a list came mid-scan is read afterwards).`,
    async run(world) {
      const rescanMs: number[] = [];
      const ready: number[] = [];
      for (let index = 0; index < 10; index++) {
        const { ms, value } = await timed(() => rescan(world.atrium));
        rescanMs.push(ms);
        ready.push(readyFromFakes(value, world.fakes));
      }
      return { rescanMs, ready, listing: await listWhileScanning(world.atrium) };
    },
  },
  baseline: {
    what: "for the rescan, Claude's two commands (the longest chain) and all 9 one after another, run straight from here with the server idle; for the list, GET /v1/health in the same rounds.",
    run: async (world) => ({ chainMs: await runInTurn(PROBE_COMMANDS.slice(0, 2), world), serialMs: await runInTurn(PROBE_COMMANDS, world) }),
  },
  rounds: { warmup: 1, measured: 3 },
  figures({ action, baseline }) {
    const rescanP50 = medianOf(action, (round) => median(round.rescanMs));
    const chainMs = medianOf(baseline, (round) => round.chainMs);
    const list = medianOf(action, (round) => round.listing.list.p50);
    const health = medianOf(action, (round) => round.listing.health.p50);
    return [
      { label: "harnesses ready after every rescan", value: Math.min(...action.flatMap((round) => round.ready)), unit: "count", target: atLeast(8) },
      { label: "rescan p50", value: rescanP50, unit: "ms", target: below(2_000) },
      { label: "rescan max", value: Math.max(...action.flatMap((round) => round.rescanMs)), unit: "ms" },
      { label: "longest probe chain run directly (claude version + login)", value: chainMs, unit: "ms" },
      { label: "all 9 probe commands run one after another", value: medianOf(baseline, (round) => round.serialMs), unit: "ms" },
      { label: "ratio rescan p50 / longest chain (1 = fully parallel)", value: ratio(rescanP50, chainMs), unit: "ratio" },
      { label: "list answers given mid-scan", value: medianOf(action, (round) => round.listing.midScanPercent), unit: "%", target: atLeast(90) },
      { label: "list p50 during rescans", value: list, unit: "ms", target: below(5) },
      { label: "list p99 during rescans", value: medianOf(action, (round) => round.listing.list.p99), unit: "ms" },
      { label: "health p50, same rounds (baseline)", value: health, unit: "ms" },
      { label: "ratio list p50 / health p50", value: ratio(list, health), unit: "ratio" },
      { label: "list body size", value: medianOf(action, (round) => round.listing.listKiB), unit: "KiB" },
    ];
  },
});

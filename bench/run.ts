/**
 * `npm run bench` (`bun bench/run.ts [key ...]`): builds the binary from the working tree, runs the measurements (each
 * declared in bench/measurements/ as a seed, an action, a baseline and rounds), prints a table with targets and writes a
 * JSON copy to bench/results/. A report, not a test, but it exits 1 when a measurement crashed (its name and error printed
 * as it happens and again at the end) or a gated target failed or could not be judged.
 */
import { readdirSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { buildBinary, gitRevision } from "./lib/atrium.ts";
import { awaitQuietMachine, interferenceMeter } from "./lib/cpu.ts";
import { QUICK, type Runnable } from "./lib/measurement.ts";
import { pinning } from "./lib/processes.ts";
import { failedTargets, renderNotes, renderTable, writeJsonReport, type Outcome } from "./lib/report.ts";

/** Above this, other processes were busy enough to drag the figures down. */
const QUIET_MACHINE_PERCENT = 5;
/** How long a measurement waits for a busy machine to go quiet before it runs anyway. */
const QUIET_WAIT_MS = 60_000;

const log = (line: string) => console.log(line);

/** Every measurement's key (bench/measurements/), in the order they run when none is named. */
const ORDER = (
  "health events cold projects harnesses stream concurrent detail lists sessions search file-search mcps machines console-list " +
  "console-stream console-markdown console-size console-session composer soak peers terminal"
).split(" ");

const isRunnable = (value: unknown): value is Runnable => typeof value === "object" && value !== null && "key" in value && "run" in value;

/**
 * The measurements bench/measurements/ declares, in ORDER, or of them those `keys` name (`bun bench/run.ts events cold`);
 * a key ORDER does not know, a declared one ORDER leaves out, or one it names without its file, is an error.
 */
async function selected(keys: string[]): Promise<Runnable[]> {
  const unknown = keys.filter((key) => !ORDER.includes(key));
  if (unknown.length > 0) throw new Error(`unknown measurement ${unknown.join(", ")}; choose from ${ORDER.join(", ")}`);
  const dir = join(import.meta.dir, "measurements");
  const modules: Record<string, unknown>[] = await Promise.all(readdirSync(dir).map((file) => import(join(dir, file))));
  const found = new Map(modules.flatMap((module) => Object.values(module).filter(isRunnable)).map((measurement) => [measurement.key, measurement]));
  const unordered = [...found.keys()].filter((key) => !ORDER.includes(key));
  const absent = ORDER.filter((key) => !found.has(key));
  if (unordered.length + absent.length > 0)
    throw new Error(`bench/run.ts's ORDER leaves out ${unordered.join(", ") || "none"}, names ${absent.join(", ") || "none"} not declared`);
  return ORDER.filter((key) => keys.length === 0 || keys.includes(key)).map((key) => found.get(key)!);
}

/**
 * Runs one measurement and adds how much CPU the rest of the machine used meanwhile, read once every
 * child process has been reaped so that our own servers and clients are not counted as others.
 */
async function runOne(measurement: Runnable, binary: string): Promise<Outcome> {
  const name = `${measurement.key}: ${measurement.title}`;
  log(`\n${name} ...`);
  const before = QUICK ? 0 : await awaitQuietMachine(QUIET_MACHINE_PERCENT, QUIET_WAIT_MS);
  if (before >= QUIET_MACHINE_PERCENT) log(`  the machine did not go quiet within ${QUIET_WAIT_MS / 1000} s; running anyway`);
  const others = interferenceMeter();
  try {
    const result = await measurement.run(binary, log);
    const otherCpu = others.read();
    if (otherCpu > QUIET_MACHINE_PERCENT) log(`  warning: other processes used ${otherCpu.toFixed(0)} % of the CPUs; the figures may suffer`);
    result.figures.push({ label: "CPU used by other processes meanwhile", value: otherCpu, unit: "%" });
    return { name, result };
  } catch (error) {
    console.error(`\nERROR ${measurement.key} crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { name, error: error instanceof Error ? error.message : String(error) };
  }
}

/** 0, or 1 when a measurement crashed or a gated target failed or could not be judged. */
async function main(): Promise<number> {
  const measurements = await selected(process.argv.slice(2));
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    bun: Bun.version,
    loadAverage: loadavg(),
  };
  const revision = gitRevision();
  log(`Atrium benchmark, ${revision}, Bun ${machine.bun}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB`);
  log(`placement: ${pinning}`);
  log("building the binary ...");
  const binary = await buildBinary();
  log(`built in ${binary.buildSeconds.toFixed(1)} s`);
  try {
    const outcomes: Outcome[] = [];
    for (const measurement of measurements) outcomes.push(await runOne(measurement, binary.path));
    log(`\n${renderTable(outcomes)}\n\n${renderNotes(outcomes)}`);
    log(`\nJSON copy: ${writeJsonReport({ date: new Date().toISOString(), revision, machine, pinning, outcomes })}`);
    const crashed = outcomes.filter((outcome) => "error" in outcome);
    const { gates, missing } = failedTargets(outcomes);
    if (missing.length > 0) log(`\nn/a (an input was missing, so the target is not met): ${missing.join("; ")}`);
    for (const outcome of crashed) console.error(`\nCRASHED ${outcome.name}: ${"error" in outcome ? outcome.error : ""}`);
    if (gates.length > 0) console.error(`\nFAILED gate: ${gates.join("; ")}`);
    return crashed.length > 0 || gates.length > 0 ? 1 : 0;
  } finally {
    binary.remove();
  }
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  console.error(`the benchmark could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
process.exit(exitCode);

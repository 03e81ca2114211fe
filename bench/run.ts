/**
 * `npm run bench`: builds the binary from the working tree, runs the measurements, prints a
 * table with targets and writes a JSON copy to bench/results/. It is a report, not a test, except for
 * gated targets (the cold start): one of those failing makes it exit 1. A measurement that fails to
 * run is reported as ERROR while the others run.
 */
import { buildBinary, gitRevision } from "./lib/atrium.ts";
import { describeMachine } from "./lib/machine.ts";
import { awaitQuietMachine, interferenceMeter } from "./lib/cpu.ts";
import { pinning } from "./lib/processes.ts";
import { failedGates, renderNotes, renderTable, writeJsonReport, type MeasurementResult, type Outcome } from "./lib/report.ts";
import { measureHealthThroughput } from "./measurements/health-throughput.ts";
import { measureEventDelivery } from "./measurements/event-delivery.ts";
import { measureColdStart } from "./measurements/cold-start.ts";
import { measureProjectList } from "./measurements/project-list.ts";
import { measureHarnessList } from "./measurements/harness-list.ts";
import { measureSessionStream } from "./measurements/session-stream.ts";
import { measureSessionConcurrent } from "./measurements/session-concurrent.ts";
import { measureSessionDetail } from "./measurements/session-detail.ts";
import { measureListThroughput } from "./measurements/list-throughput.ts";
import { measureSessionList } from "./measurements/session-list.ts";
import { measureBigReply } from "./measurements/session-big-reply.ts";
import { measureMcpServers } from "./measurements/mcp-servers.ts";
import { measureMachineSync } from "./measurements/machine-sync.ts";
import { measureConsoleList } from "./measurements/console-list.ts";
import { measureConsoleStream } from "./measurements/console-stream.ts";
import { measureConsoleMarkdown } from "./measurements/console-markdown.ts";
import { measureConsoleSize } from "./measurements/console-size.ts";
import { measureConsoleSession } from "./measurements/console-session.ts";
import { measureEventSoak } from "./measurements/event-soak.ts";
import { measureCompactionDelivery } from "./measurements/compaction-delivery.ts";
import { measurePeers } from "./measurements/peers.ts";
import { measureStreamCompression } from "./measurements/stream-compression.ts";

/** Above this, other processes were busy enough to drag the figures down. */
const QUIET_MACHINE_PERCENT = 5;
/** How long a measurement waits for a busy machine to go quiet before it runs anyway. */
const QUIET_WAIT_MS = 60_000;

const log = (line: string) => console.log(line);

const measurements: { key: string; name: string; run: (binary: string) => Promise<MeasurementResult> }[] = [
  { key: "health", name: "GET /v1/health throughput", run: (binary) => measureHealthThroughput(binary, log) },
  { key: "events", name: "Event append -> 100 SSE clients", run: measureEventDelivery },
  { key: "cold", name: "Cold start and idle memory", run: measureColdStart },
  { key: "projects", name: "GET /v1/projects with 1,000 projects", run: measureProjectList },
  { key: "harnesses", name: "Harness rescan and GET /v1/harnesses", run: measureHarnessList },
  { key: "stream", name: "One long reply: 20,000 chunks -> SSE and store", run: measureSessionStream },
  { key: "concurrent", name: "20 sessions streaming at once -> 1 SSE client", run: measureSessionConcurrent },
  { key: "detail", name: "GET /v1/sessions/{id} pages, 10,000 items", run: measureSessionDetail },
  { key: "lists", name: "Guarded reads on an empty store vs bare Bun.serve", run: (binary) => measureListThroughput(binary, log) },
  { key: "sessions", name: "GET /v1/sessions?limit=50 with 10,000 sessions", run: measureSessionList },
  { key: "bigreply", name: "An 11.5 MB reply to 3 live SSE clients", run: measureBigReply },
  { key: "mcps", name: "GET /v1/mcps with 200 servers while probed; 50 stdio probes at once", run: measureMcpServers },
  { key: "machines", name: "Paired servers: 200 writes A -> B; B catching up 10,000 keys", run: (binary) => measureMachineSync(binary, log) },
  { key: "console-list", name: "Console: the session list with 5,000 sessions, first paint on a phone", run: measureConsoleList },
  { key: "console-stream", name: "Console: frames while a reply of 20,000 chunks streams", run: measureConsoleStream },
  { key: "console-markdown", name: "Console: a 1 MB markdown reply, 200 code blocks, streaming in 20,000 chunks on a phone", run: measureConsoleMarkdown },
  { key: "console-size", name: "Console: the initial script and the console's share of the binary", run: measureConsoleSize },
  { key: "console-session", name: "Console: 500 replies, 2,000 tool calls, first paint on a phone", run: (binary) => measureConsoleSession(binary, log) },
  { key: "soak", name: "Event log soak: 10,000 turns, 200 sessions, half deleted, compacting", run: measureEventSoak },
  { key: "compaction", name: "Event delivery while compaction removes a 100,000-event backlog, vs idle", run: measureCompactionDelivery },
  { key: "peers", name: "Atrium vs HAPI hub and opencode serve, 5,000 sessions each", run: (binary) => measurePeers(binary, log) },
  {
    key: "stream-compression",
    name: "The event stream compressed with a flush per event, vs raw and the server's CPU",
    run: (binary) => measureStreamCompression(binary, log),
  },
];

/** `bun bench/run.ts events cold` runs only those; no arguments runs them all. */
function selectedMeasurements(keys: string[]): typeof measurements {
  const unknown = keys.filter((key) => !measurements.some((measurement) => measurement.key === key));
  if (unknown.length > 0) {
    throw new Error(`unknown measurement ${unknown.join(", ")}; choose from ${measurements.map((m) => m.key).join(", ")}`);
  }
  return keys.length === 0 ? measurements : measurements.filter((measurement) => keys.includes(measurement.key));
}

/**
 * Runs one measurement and adds how much CPU the rest of the machine used meanwhile, read once every
 * child process has been reaped so that our own servers and clients are not counted as others.
 */
async function runOne(name: string, run: (binary: string) => Promise<MeasurementResult>, binary: string): Promise<Outcome> {
  log(`\n${name} ...`);
  const before = await awaitQuietMachine(QUIET_MACHINE_PERCENT, QUIET_WAIT_MS);
  if (before >= QUIET_MACHINE_PERCENT) log(`  the machine did not go quiet within ${QUIET_WAIT_MS / 1000} s; running anyway`);
  const others = interferenceMeter();
  try {
    const result = await run(binary);
    const otherCpu = others.read();
    if (otherCpu > QUIET_MACHINE_PERCENT) {
      log(`  warning: other processes used ${otherCpu.toFixed(0)} % of the CPUs; the figures may suffer`);
    }
    result.figures.push({ label: "CPU used by other processes meanwhile", value: otherCpu, unit: "%" });
    return { name, result };
  } catch (error) {
    return { name, error: error instanceof Error ? error.message : String(error) };
  }
}

/** 0, or 1 when a gated target failed. */
async function main(): Promise<number> {
  const selected = selectedMeasurements(process.argv.slice(2));
  const machine = describeMachine();
  const revision = gitRevision();
  log(`Atrium benchmark, ${revision}, Bun ${machine.bun}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB`);
  log(`placement: ${pinning}`);
  log("building the binary ...");
  const binary = await buildBinary();
  log(`built in ${binary.buildSeconds.toFixed(1)} s`);
  try {
    const outcomes: Outcome[] = [];
    for (const { name, run } of selected) outcomes.push(await runOne(name, run, binary.path));
    log(`\n${renderTable(outcomes)}\n\n${renderNotes(outcomes)}`);
    const file = writeJsonReport({ date: new Date().toISOString(), revision, machine, pinning, outcomes });
    log(`\nJSON copy: ${file}`);
    const gates = failedGates(outcomes);
    if (gates.length > 0) {
      log(`\nFAILED: ${gates.join("; ")}`);
      return 1;
    }
  } finally {
    binary.remove();
  }
  return 0;
}

let exitCode = 0;
try {
  exitCode = await main();
} catch (error) {
  console.error(`the benchmark could not run: ${error instanceof Error ? error.message : String(error)}`);
}
process.exit(exitCode);

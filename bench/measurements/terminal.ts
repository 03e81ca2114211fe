import { join } from "node:path";
import { type Atrium, syncWrite } from "../lib/atrium.ts";
import { type EventStream, wallMs } from "../lib/events.ts";
import { measurement } from "../lib/measurement.ts";
import { childPids, LOAD_CPU, onCpu, onSchedule, pinThisProcess, rssBytes, SERVER_CPU, stopProcess, unpin, until } from "../lib/processes.ts";
import { below } from "../lib/report.ts";
import { medianOf, ratio, summarize, type Summary } from "../lib/stats.ts";

const KEYSTROKES = 200;
const FLOOD_BYTES = 200_000_000;
const IDLE_TERMINALS = 10;
/** Event appends during the flood (and as many idle), one every INTERVAL_MS. */
const APPENDS = 100;
const INTERVAL_MS = 20;

/** A WebSocket opened with headers (Bun's client), its frames decoded and collected. */
async function openSocket(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers } as unknown as string[]);
  socket.binaryType = "arraybuffer";
  const received = { bytes: 0, text: "", lastAt: 0 };
  const decoder = new TextDecoder();
  socket.addEventListener("message", (event) => {
    if (typeof event.data === "string") return;
    const chunk = new Uint8Array(event.data as ArrayBuffer);
    received.bytes += chunk.byteLength;
    received.lastAt = wallMs();
    // Only the tail is looked at (the echo, the end marker).
    received.text = (received.text + decoder.decode(chunk, { stream: true })).slice(-256);
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`could not open ${url}`)), { once: true });
  });
  return { socket, received };
}

/** Keystrokes one at a time, each after the echo of the one before: an `x`, then a backspace (echoed `\b \b`). */
async function echoLatencies(url: string, headers?: Record<string, string>): Promise<Summary> {
  const { socket, received } = await openSocket(url, headers);
  const latencies: number[] = [];
  for (let index = 0; index < KEYSTROKES; index++) {
    const before = received.bytes;
    const sentAt = wallMs();
    socket.send(index % 2 === 0 ? "x" : "\x7f");
    await until(() => (received.bytes > before ? true : undefined), 5_000, "an echo", 0);
    latencies.push(received.lastAt - sentAt);
  }
  socket.close();
  return summarize(latencies);
}

/** Sync appends every INTERVAL_MS; each one's delivery on the event stream, from just before its PUT. */
async function eventDelays(world: { atrium: Atrium; events: EventStream; appended: number }): Promise<Summary> {
  const sentAt: number[] = [];
  const first = world.appended + 1;
  await onSchedule(APPENDS, INTERVAL_MS, async () => {
    const body = syncWrite(world.appended++);
    sentAt.push(wallMs());
    await world.atrium.call(200, "PUT", "/v1/sync/bench", body);
  });
  await world.events.until(() => world.events.events.filter((event) => event.kind === "sync.changed").length >= world.appended, 10_000, "sync events");
  const delivered = world.events.events.filter((event) => event.kind === "sync.changed").slice(first - 1, first - 1 + APPENDS);
  return summarize(delivered.map((event, index) => event.receivedAt - sentAt[index]!));
}

export const terminal = measurement({
  key: "terminal",
  title: "Terminal over its WebSocket: keystroke echo, a flood, the event stream meanwhile",
  seed: {
    what:
      `the compiled binary on a fresh data dir with a scratch project; ${IDLE_TERMINALS} idle shells (the server's RSS before and after, and the shells' own, per terminal); ` +
      "one terminal running /bin/sh; the bare program (bench/fixtures/bare-terminal.ts: Bun.Terminal + Bun.serve WebSocket, same Bun) " +
      "running /bin/sh; an SSE client; this process pinned to the load CPU, the shells unpinned (they are not the server).",
    async run(bench) {
      const atrium = await bench.atrium({ env: { SHELL: "/bin/sh" } });
      bench.defer(pinThisProcess(LOAD_CPU));
      const project = await atrium.call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true });
      const open = () => atrium.call<{ id: string }>(201, "POST", "/v1/terminals", { projectId: project.id, cols: 80, rows: 24 });
      await Bun.sleep(500);
      const rssBefore = rssBytes(atrium.pid);
      const childrenBefore = new Set(childPids(atrium.pid));
      for (let index = 0; index < IDLE_TERMINALS; index++) await open();
      await Bun.sleep(500);
      const serverRssPerIdleTerminal = (rssBytes(atrium.pid) - rssBefore) / IDLE_TERMINALS;
      const shells = childPids(atrium.pid).filter((pid) => !childrenBefore.has(pid));
      const shellRssPerIdleTerminal = shells.reduce((sum, pid) => sum + rssBytes(pid), 0) / shells.length;
      const terminal = await open();
      // The shells are not the server: like a real install's, they (and the flood) may use every CPU.
      for (const pid of childPids(atrium.pid)) unpin(pid);
      // On the server's CPU, as Atrium is: the two differ only by what Atrium does around the PTY.
      const bare = Bun.spawn(onCpu(SERVER_CPU, [process.execPath, join(import.meta.dir, "..", "fixtures", "bare-terminal.ts")]), {
        env: { ...process.env, SHELL: "/bin/sh" },
        stdout: "pipe",
        stderr: "inherit",
      });
      bench.defer(() => stopProcess(bare));
      const reader = bare.stdout.getReader();
      const bareSocket = new TextDecoder().decode((await reader.read()).value).trim();
      reader.releaseLock();
      const events = await atrium.events();
      bench.defer(() => events.close());
      const terminalSocket = `${atrium.url.replace(/^http/, "ws")}/v1/terminals/${terminal.id}/socket`;
      return { atrium, terminalSocket, bareSocket, events, appended: 0, serverRssPerIdleTerminal, shellRssPerIdleTerminal };
    },
  },
  action: {
    what:
      `${KEYSTROKES} keystrokes over Atrium's socket, each after the last one's echo (latency: the first output frame after the send); ` +
      `event delivery of ${APPENDS} sync appends ${INTERVAL_MS} ms apart while idle, then the same during \`yes | head -c ${FLOOD_BYTES}\` ` +
      "read by an attached client (MiB/s: bytes through the socket, which has \\r\\n for each \\n, over the time to the end marker).",
    async run(world) {
      const echoMs = await echoLatencies(world.terminalSocket, world.atrium.headers);
      const idleEventsMs = await eventDelays(world);
      const { socket, received } = await openSocket(world.terminalSocket, world.atrium.headers);
      const started = wallMs();
      const from = received.bytes;
      socket.send(`yes | head -c ${FLOOD_BYTES}; echo flood-$((40+2))\n`);
      const floodEventsMs = await eventDelays(world);
      await until(() => (received.text.includes("flood-42") ? true : undefined), 300_000, "the end of the flood", 50);
      const floodMiBps = (received.bytes - from) / 1024 / 1024 / ((received.lastAt - started) / 1000);
      socket.close();
      return { echoMs, floodMiBps, idleEventsMs, floodEventsMs };
    },
  },
  baseline: {
    what: `the same ${KEYSTROKES} keystrokes over the bare program's socket.`,
    run: async (world) => ({ echoMs: await echoLatencies(world.bareSocket) }),
  },
  rounds: { warmup: 1, measured: 3 },
  figures: ({ action, baseline }, world) => {
    const [p50, p99] = [medianOf(action, (round) => round.echoMs.p50), medianOf(action, (round) => round.echoMs.p99)];
    const [bareP50, bareP99] = [medianOf(baseline, (round) => round.echoMs.p50), medianOf(baseline, (round) => round.echoMs.p99)];
    const [idle, flood] = [medianOf(action, (round) => round.idleEventsMs.p99), medianOf(action, (round) => round.floodEventsMs.p99)];
    return [
      { label: "keystroke echo p50", value: p50, unit: "ms" },
      { label: "keystroke echo p99", value: p99, unit: "ms" },
      { label: "bare program echo p50", value: bareP50, unit: "ms" },
      { label: "bare program echo p99", value: bareP99, unit: "ms" },
      { label: "echo p50 / bare", value: ratio(p50, bareP50), unit: "ratio", target: below(1.3) },
      { label: "echo p99 / bare", value: ratio(p99, bareP99), unit: "ratio", target: below(1.3) },
      { label: "flood through an attached client, MiB each second", value: medianOf(action, (round) => round.floodMiBps), unit: "MiB" },
      { label: "event delivery p99 idle", value: idle, unit: "ms" },
      { label: "event delivery p99 during the flood", value: flood, unit: "ms" },
      { label: "during the flood / idle", value: ratio(flood, idle), unit: "ratio", target: below(2) },
      { label: "server RSS per idle terminal", value: world.serverRssPerIdleTerminal / 1024, unit: "KiB" },
      { label: "shell RSS per idle terminal", value: world.shellRssPerIdleTerminal / 1024, unit: "KiB" },
    ];
  },
});

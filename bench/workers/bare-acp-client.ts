/**
 * The baseline of the long-reply benchmark: the SDK's own ACP client reading the same streaming agent
 * over stdio, with no Atrium in between. It does what any ACP client must (read the pipe, parse each
 * line, dispatch the notification) and keeps the text, nothing more. Run pinned to the server's CPU,
 * it says what the stream costs before Atrium stores and publishes it.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { wallMs } from "../lib/events.ts";
import { streamChunk, type StreamReport } from "./streaming-agent.ts";

/** `command` runs the agent (Bun on bench/workers/streaming-agent.ts, pinned to the load CPU); `rate` is chunks per second, 0 as fast as the pipe takes them. */
export type BareClientConfig = { command: string[]; reportsDir: string; warmupCount: number; count: number; size: number; rate: number; tag: string };

// Started by runWorker (bench/lib/processes.ts): its config as JSON in argv, its result as the last line of its output.
const config = JSON.parse(process.argv[2]!) as BareClientConfig;
const child = Bun.spawn(config.command, {
  env: { ...process.env, STREAMING_AGENT_REPORTS: config.reportsDir },
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const stdin = child.stdin;
const output = new WritableStream<Uint8Array>({
  async write(chunk) {
    stdin.write(chunk);
    await stdin.flush();
  },
});

let parts: string[] = [];
let length = 0;
let expectedLength = Infinity;
let allTextAt: number | undefined;
const connection = client({ name: "bench-bare-client" })
  .onNotification("session/update", ({ params }) => {
    const update = params.update;
    if (update.sessionUpdate !== "agent_message_chunk" || update.content.type !== "text") return;
    parts.push(update.content.text);
    length += update.content.text.length;
    if (length >= expectedLength && allTextAt === undefined) allTextAt = wallMs();
  })
  .connect(ndJsonStream(output, child.stdout));

await connection.agent.request("initialize", {
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "bench-bare-client", version: "1" },
});
const cwd = tmpdir();
const { sessionId } = await connection.agent.request("session/new", { cwd, mcpServers: [] });
const prompt = (text: string) => connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

// Warms up both sides, as the server's session gets a warm-up turn before the measured ones.
await prompt(`stream count=${config.warmupCount} size=${config.size}`);

const expected = Array.from({ length: config.count }, (_, index) => streamChunk(index, config.size)).join("");
parts = [];
length = 0;
expectedLength = expected.length;
const cpuBefore = process.cpuUsage();
await prompt(`stream count=${config.count} size=${config.size} rate=${config.rate} tag=${config.tag}`);
const cpu = process.cpuUsage(cpuBefore);
const reportFile = join(config.reportsDir, `${config.tag}.json`);
const report = (await Bun.file(reportFile).json()) as StreamReport;
rmSync(reportFile, { force: true });
connection.close();
child.kill();
// Reaped here, so that the agent's CPU time is counted as the benchmark's own and not as other processes'.
await child.exited;

const result = {
  /** This process's CPU time (user + system) from sending the prompt to its answer. */
  cpuMs: (cpu.user + cpu.system) / 1000,
  /** The client held the whole text, minus the agent's last chunk written (wall ms, one clock). */
  allTextAfterLastChunkMs: (allTextAt ?? Number.NaN) - report.lastChunkAt,
  report,
  textMatches: parts.join("") === expected,
};
export type BareClientResult = typeof result;
await Bun.write(Bun.stdout, `${JSON.stringify(result)}\n`);
// Nothing lingering (a socket, a timer) keeps it alive.
process.exit(0);

/**
 * The ACP agent of the session benchmarks: a real agent over stdio (the SDK's `agent()` builder, like the
 * built-in echo agent) whose prompt says what it does:
 *   stream count=N size=S [rate=R] [stamp=1] [tag=T]   N chunks of S characters, each as soon as the last is
 *                                                       written, or R per second
 *   reply size=S                                        one chunk of S characters (a fast turn)
 * Chunk i is `streamChunk(i, S)`, so the benchmark knows the exact reply; with `stamp=1`, `<i>@<wallMs()
 * when sent>` padded with dots, so it can time each chunk's delivery (one clock for every process). With a
 * tag, after the last chunk it writes `$STREAMING_AGENT_REPORTS/<tag>.json` (then renames it, never read
 * half-written): the first and last chunk's wall times, the counts, its own CPU. It runs only as the entry point.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agent, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import type * as acp from "@agentclientprotocol/sdk";
import { wallMs } from "../lib/events.ts";

/**
 * Wall ms just before the first chunk was handed to the SDK and once the last one's line was written to stdout; the
 * agent's own CPU time (user + system) from the first chunk to the last.
 */
export type StreamReport = { tag: string; firstChunkAt: number; lastChunkAt: number; chunks: number; characters: number; cpuMs: number };

/** `stream count=20000 size=50 tag=r1` and the like; anything else is a one-chunk reply. */
function parsePrompt(text: string) {
  const [command, ...pairs] = text.trim().split(/\s+/);
  const options = new Map(pairs.map((pair) => pair.split("=", 2) as [string, string]));
  const number = (key: string, fallback: number) => {
    const value = Number(options.get(key));
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    command: command === "stream" ? "stream" : "reply",
    count: number("count", 1),
    size: Math.max(number("size", 50), 24),
    // Chunks per second; 0 sends each as soon as the previous one is written.
    rate: number("rate", 0),
    stamp: options.get("stamp") === "1",
    tag: options.get("tag"),
  };
}

const FILLER = "the quick brown fox jumps over the lazy dog; ";

/**
 * Chunk `index` of a plain stream: `size` characters ending in a newline, with a quote, a backslash
 * and a tab in each (they must survive JSON escaping on the way through the server) and a non-ASCII
 * letter in every hundredth.
 */
export function streamChunk(index: number, size: number): string {
  const head = `${String(index).padStart(6, "0")} "q" \\ \t${index % 100 === 0 ? "é" : ""}`;
  let body = head;
  while (body.length < size - 1) body += FILLER;
  return `${body.slice(0, size - 1)}\n`;
}

function stampedChunk(index: number, size: number): string {
  const head = `${index}@${wallMs().toFixed(3)}`;
  return `${head.padEnd(size - 1, ".")}\n`;
}

function writeReport(report: StreamReport): void {
  const dir = process.env.STREAMING_AGENT_REPORTS;
  if (!dir) return;
  const file = join(dir, `${report.tag}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(report));
  renameSync(`${file}.tmp`, file);
}

function runAgent(): Promise<void> {
  const sessions = new Set<string>();
  const app = agent({ name: "bench-streaming-agent" })
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: "bench-streaming-agent", version: "1" },
    }))
    .onRequest("session/new", () => {
      const sessionId = `bench-${crypto.randomUUID()}`;
      sessions.add(sessionId);
      return { sessionId };
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      const prompt = parsePrompt(text);
      const say = (chunk: string) =>
        client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
        } satisfies acp.SessionNotification);
      if (prompt.command === "reply") {
        await say(streamChunk(0, prompt.size));
        return { stopReason: "end_turn" };
      }
      const cpuBefore = process.cpuUsage();
      const firstChunkAt = wallMs();
      let characters = 0;
      for (let index = 0; index < prompt.count; index++) {
        const chunk = prompt.stamp ? stampedChunk(index, prompt.size) : streamChunk(index, prompt.size);
        characters += chunk.length;
        await say(chunk);
        if (prompt.rate > 0) {
          // Sleeps only when a few milliseconds ahead of the schedule, since a timer is not finer.
          const ahead = firstChunkAt + ((index + 1) * 1000) / prompt.rate - wallMs();
          if (ahead >= 2) await Bun.sleep(ahead);
        }
      }
      const lastChunkAt = wallMs();
      const cpu = process.cpuUsage(cpuBefore);
      if (prompt.tag) {
        writeReport({ tag: prompt.tag, firstChunkAt, lastChunkAt, chunks: prompt.count, characters, cpuMs: (cpu.user + cpu.system) / 1000 });
      }
      return { stopReason: "end_turn" };
    });

  // A write resolves once stdout has taken the bytes, so the pipe's backpressure reaches the loop above.
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
  });
  return app.connect(ndJsonStream(output, Bun.stdin.stream())).closed;
}

if (import.meta.main) {
  await runAgent();
  process.exit(0);
}

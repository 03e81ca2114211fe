/**
 * Issue 30: would the event stream be worth compressing? Every event must reach its client at once, so a
 * compressor on the stream has to flush after each write, which costs both ratio (each flush closes a block) and CPU.
 */
import { constants, createBrotliCompress, createGzip, createZstdCompress, type BrotliCompress, type Gzip, type ZstdCompress } from "node:zlib";
import { STREAM_GZIP } from "../../src/events/stream-output.ts";
import { scriptedAgent } from "../lib/agents.ts";
import { newSession, prompt, scratchProject, type Atrium } from "../lib/atrium.ts";
import { cpuSeconds } from "../lib/cpu.ts";
import { measurement } from "../lib/measurement.ts";
import { rssBytes } from "../lib/processes.ts";
import type { Figure } from "../lib/report.ts";
import { median, ratio } from "../lib/stats.ts";
import { REPLY_TEXT, type ScriptStep, TURN_STEPS } from "./console-session-reply.ts";

/** Between two text chunks: about a fast model's pace, and under the server's 25 ms delta timer, so most deltas hold one chunk. */
const PACE_MS = 20;
const TOOL_TURNS = 3;
const LONG_CHUNKS = 400;
/** Passes of each codec over the recorded stream; the median CPU is reported. */
const PASSES = 5;
const OPEN_STREAMS = 100;

const paced = (steps: ScriptStep[]) => steps.flatMap((step): (ScriptStep | { sleep: number })[] => ("chunk" in step ? [step, { sleep: PACE_MS }] : [step]));
const longReply = () => paced(Array.from({ length: LONG_CHUNKS }, (_, index) => ({ chunk: REPLY_TEXT.repeat(8).slice(index * 24, (index + 1) * 24) })));

type Compressor = Gzip | BrotliCompress | ZstdCompress;

const CODECS: { name: string; make(): Compressor; flushKind: number }[] = [
  { name: "gzip 6", make: () => createGzip({ level: 6 }), flushKind: constants.Z_SYNC_FLUSH },
  { name: "gzip 6, 16 KiB window (sent)", make: () => createGzip(STREAM_GZIP), flushKind: constants.Z_SYNC_FLUSH },
  { name: "gzip 6, 4 KiB window", make: () => createGzip({ level: 6, windowBits: 12, memLevel: 5 }), flushKind: constants.Z_SYNC_FLUSH },
  { name: "gzip 1", make: () => createGzip({ level: 1 }), flushKind: constants.Z_SYNC_FLUSH },
  { name: "brotli 4", make: () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }), flushKind: constants.BROTLI_OPERATION_FLUSH },
  { name: "zstd 3", make: () => createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } }), flushKind: constants.ZSTD_e_flush },
];

/** Writes each unit into one compressor (one per pass, as one per connection) and waits for its flush; `compressor` absent, the same loop compressing nothing. */
async function pass(units: Uint8Array[], codec?: (typeof CODECS)[number]): Promise<{ bytes: number; cpuUs: number }> {
  const compressor = codec?.make();
  let bytes = 0;
  compressor?.on("data", (chunk: Buffer) => {
    bytes += chunk.byteLength;
  });
  const cpu = process.cpuUsage();
  for (const unit of units) {
    if (!compressor) await new Promise<void>((resolve) => setImmediate(resolve));
    else {
      compressor.write(unit);
      await new Promise<void>((resolve) => compressor.flush(codec!.flushKind, resolve));
    }
  }
  const used = process.cpuUsage(cpu);
  compressor?.close();
  return { bytes, cpuUs: used.user + used.system };
}

/** Compressed / raw, and the CPU per event less the loop's own, median of PASSES after one unmeasured. */
async function compress(codec: (typeof CODECS)[number], units: Uint8Array[], rawBytes: number, events: number) {
  const { bytes } = await pass(units, codec);
  const cpu: number[] = [];
  const loop: number[] = [];
  for (let index = 0; index < PASSES; index++) {
    cpu.push((await pass(units, codec)).cpuUs);
    loop.push((await pass(units)).cpuUs);
  }
  return { ratio: bytes / rawBytes, cpuUsPerEvent: Math.max(0, median(cpu) - median(loop)) / events };
}

/**
 * A name the server is told to accept (allowedHosts): reached by it, as a phone reaches it by the
 * machine's name, a client gets the stream gzipped; by a loopback name, plain.
 */
const REMOTE_NAME = "atrium-bench.test";

/** The server's RSS with OPEN_STREAMS idle streams open, plain or gzipped, less its RSS before, per stream. */
async function rssPerStreamKiB(atrium: Atrium, gzip: boolean): Promise<number> {
  const before = rssBytes(atrium.pid);
  const aborts = Array.from({ length: OPEN_STREAMS }, () => new AbortController());
  const headers = {
    ...atrium.headers,
    ...(gzip ? { host: `${REMOTE_NAME}:${new URL(atrium.url).port}`, "accept-encoding": "gzip" } : { "accept-encoding": "identity" }),
  };
  try {
    for (const abort of aborts) {
      const response = await fetch(`${atrium.url}/v1/events/stream`, { headers, signal: abort.signal, decompress: false });
      if ((response.headers.get("content-encoding") === "gzip") !== gzip) throw new Error(`a stream ${gzip ? "meant gzipped came plain" : "came gzipped"}`);
      // The preamble has gone through the compressor, if any, so its state is allocated.
      await response.body?.getReader().read();
    }
    await Bun.sleep(300);
    return (rssBytes(atrium.pid) - before) / OPEN_STREAMS / 1024;
  } finally {
    for (const abort of aborts) abort.abort();
    await Bun.sleep(300);
  }
}

/** The stream cut after each blank line: one unit per event (or comment) as the server frames it. */
function framesOf(bytes: Buffer): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let start = 0, end = 0; start < bytes.length; start = end) {
    const blank = bytes.indexOf("\n\n", start);
    end = blank === -1 ? bytes.length : blank + 2;
    frames.push(bytes.subarray(start, end));
  }
  return frames;
}

export const streamCompression = measurement({
  key: "stream-compression",
  title: "The event stream compressed with a flush per event, vs raw and the server's CPU",
  seed: {
    what: "one session of the scripted ACP agent.",
    async run(bench) {
      const agent = scriptedAgent(bench.tempDir("stream-compression"), { turn: paced(TURN_STEPS), long: longReply() });
      const atrium = await bench.atrium({ config: { ...agent.config, allowedHosts: [REMOTE_NAME] }, env: agent.env, harness: agent.harness });
      return { atrium, sessionId: await newSession(atrium, await scratchProject(atrium, "shop-api"), agent.harness, "Retries") };
    },
  },
  action: {
    what:
      `${TOOL_TURNS} turns of a Claude Code reply (24-character text chunks, a Read, an Edit, a Write, a Bash run) and a reply of ` +
      `${LONG_CHUNKS} chunks, a chunk every ${PACE_MS} ms, while one client reads GET /v1/events/stream raw (Accept-Encoding: identity); ` +
      "that exact byte sequence is then compressed here through node:zlib streams, one compressor per pass, flushed after every event " +
      `and after every read of the socket (the server's writes); CPU is process.cpuUsage less the same loop compressing nothing, median ` +
      `of ${PASSES} passes; then the server's RSS with ${OPEN_STREAMS} idle streams open, plain and gzipped.`,
    async run({ atrium, sessionId }) {
      const reads: Uint8Array[] = [];
      const stream = await atrium.events("", { headers: { "accept-encoding": "identity" }, onBytes: (bytes) => reads.push(bytes) });
      const cpuBefore = cpuSeconds(atrium.pid);
      try {
        for (let turn = 0; turn < TOOL_TURNS; turn++) await prompt(atrium, sessionId, "turn");
        await prompt(atrium, sessionId, "long");
        const completed = () =>
          stream.events.filter((event) => event.kind === "session.message.completed" && (event.payload.item as { role: string }).role === "assistant").length;
        await stream.until(() => completed() >= TOOL_TURNS + 1, 120_000, "the end of the replies");
        // The session's last updates (its state, usage) are on the stream too.
        await Bun.sleep(500);
      } finally {
        stream.close();
      }
      const serverCpuMs = (cpuSeconds(atrium.pid) - cpuBefore) * 1000;
      const [plainKiB, gzipKiB] = [await rssPerStreamKiB(atrium, false), await rssPerStreamKiB(atrium, true)];
      const all = Buffer.concat(reads);
      const frames = framesOf(all);
      const events = stream.events.length;
      const codecs = [];
      for (const codec of CODECS) {
        codecs.push({
          name: codec.name,
          perEvent: await compress(codec, frames, all.byteLength, events),
          perWrite: await compress(codec, reads, all.byteLength, events),
        });
      }
      return { events, writes: reads.length, rawBytes: all.byteLength, serverCpuMs, codecs, plainKiB, gzipKiB };
    },
  },
  baseline: { what: "the raw stream, and the server's own CPU per event delivered (everything it did for the turn: ACP, the store, the stream)." },
  rounds: { warmup: 0, measured: 1 },
  figures({ action: [recorded] }) {
    const { events, writes, rawBytes, serverCpuMs, codecs, plainKiB, gzipKiB } = recorded!;
    // µs per event is ms per 1,000 events.
    const serverUsPerEvent = (serverCpuMs * 1000) / events;
    const figures: Figure[] = [
      { label: "events in the stream", value: events, unit: "count" },
      { label: "writes of the server, as read from the socket", value: writes, unit: "count" },
      { label: "raw stream per event", value: rawBytes / events, unit: "B" },
      { label: "server CPU per 1,000 events delivered (all its work for them)", value: serverUsPerEvent, unit: "ms" },
    ];
    for (const { name, perEvent, perWrite } of codecs) {
      // That the stream as sent stays under half its raw bytes is the suite's to check (test/events/event-stream-compression.test.ts).
      figures.push(
        { label: `${name}, flushed per event: compressed / raw`, value: perEvent.ratio, unit: "ratio" },
        { label: `${name}, flushed per event: CPU per 1,000 events`, value: perEvent.cpuUsPerEvent, unit: "ms" },
        { label: `${name}, flushed per event: CPU / server CPU per event`, value: ratio(perEvent.cpuUsPerEvent, serverUsPerEvent), unit: "ratio" },
        { label: `${name}, flushed per server write: compressed / raw`, value: perWrite.ratio, unit: "ratio" },
      );
    }
    figures.push(
      { label: `server RSS per open stream, plain (${OPEN_STREAMS} open)`, value: plainKiB, unit: "KiB" },
      { label: `server RSS per open stream, gzipped (reached as ${REMOTE_NAME})`, value: gzipKiB, unit: "KiB" },
    );
    return figures;
  },
});

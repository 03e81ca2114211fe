/**
 * Issue 30: would the event stream be worth compressing? Every event must reach its client at once,
 * so a compressor on the stream has to flush after each write, which costs both ratio (each flush
 * closes a block) and CPU. This records the exact bytes of a realistic stream as the compiled server
 * sends them, then compresses that same byte sequence here, flushed per event and per write of the
 * server, and sets the figures against what the server itself spent per event.
 */
import { rmSync } from "node:fs";
import { constants, createBrotliCompress, createGunzip, createGzip, createZstdCompress, type BrotliCompress, type Gzip, type ZstdCompress } from "node:zlib";
import { apiCaller } from "../lib/api.ts";
import type { RunningAtrium } from "../lib/atrium.ts";
import { cpuSeconds } from "../lib/cpu.ts";
import { SCRIPTED_HARNESS_ID, scriptedAgentServer, startScriptedAtrium } from "../lib/scripted-agent.ts";
import { pinning, rssBytes, tempDir } from "../lib/processes.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { median } from "../lib/stats.ts";
import { STREAM_GZIP } from "../../src/events/stream-output.ts";
import { REPLY_TEXT, TURN_STEPS, type ScriptStep } from "./console-session-reply.ts";

/** Between two text chunks: about a fast model's pace, and under the server's 25 ms delta timer, so most deltas hold one chunk. */
const PACE_MS = 20;
/** Turns of a Claude Code reply with its four tool calls (bench/measurements/console-session-reply.ts). */
const TOOL_TURNS = 3;
/** Then one long reply in chunks of a few tokens. */
const LONG_CHUNKS = 400;
const LONG_CHUNK_CHARS = 24;
/** Passes of each codec over the recorded stream; the median CPU is reported. */
const PASSES = 5;
const OPEN_STREAMS = 100;
const TURNS_TIMEOUT_MS = 120_000;
/** After the last reply completed: the session's last updates (its state, usage) are on the stream too. */
const TAIL_MS = 500;
/** The issue's bar: worth it at 2× fewer bytes, for a CPU cost small against the server's own per event. */
const TARGET_RATIO = 0.5;

type Step = ScriptStep | { sleep: number };

const paced = (steps: ScriptStep[]): Step[] => steps.flatMap((step): Step[] => ("chunk" in step ? [step, { sleep: PACE_MS }] : [step]));

function longReply(): Step[] {
  let text = "";
  while (text.length < LONG_CHUNKS * LONG_CHUNK_CHARS) text += REPLY_TEXT;
  const chunks = Array.from({ length: LONG_CHUNKS }, (_, index) => ({ chunk: text.slice(index * LONG_CHUNK_CHARS, (index + 1) * LONG_CHUNK_CHARS) }));
  return paced(chunks);
}

/** What the stream delivered: every read of the socket, with its bytes, in order. */
interface RecordedStream {
  reads: Uint8Array[];
  serverCpuMs: number;
  wallMs: number;
}

/**
 * Reads `/v1/events/stream` as sent (identity asked for, no decoding done), pushing every read of the
 * socket onto `reads` as it comes, until `stop` resolves. Resolves once the stream is open.
 */
async function recordStream(url: string, token: string, reads: Uint8Array[], stop: Promise<void>): Promise<{ ended: Promise<void> }> {
  const abort = new AbortController();
  const response = await fetch(`${url}/v1/events/stream`, {
    headers: { authorization: `Bearer ${token}`, "accept-encoding": "identity" },
    signal: abort.signal,
    decompress: false,
  });
  if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`);
  if (response.headers.get("content-encoding")) throw new Error("the stream was compressed though identity was asked for");
  void stop.then(() => abort.abort());
  const body = response.body;
  const reader = body.getReader();
  // The preamble (`retry`, `: connected`): the stream is subscribed once it is here.
  const first = await reader.read();
  if (first.value) reads.push(first.value);
  // Wrapped: an async function returning a promise would wait for it.
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        reads.push(value);
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return { ended };
}

const decoder = new TextDecoder();
const countOf = (text: string, needle: string) => text.split(needle).length - 1;

/** The whole recorded stream cut into its frames: an event (or a comment) ends at a blank line. */
function framesOf(bytes: Uint8Array): Uint8Array[] {
  const frames: Uint8Array[] = [];
  let start = 0;
  for (let index = 1; index < bytes.length; index++) {
    if (bytes[index] === 10 && bytes[index - 1] === 10) {
      frames.push(bytes.subarray(start, index + 1));
      start = index + 1;
    }
  }
  if (start < bytes.length) frames.push(bytes.subarray(start));
  return frames;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return all;
}

type Compressor = Gzip | BrotliCompress | ZstdCompress;

interface Codec {
  name: string;
  /** The compressor's own state, as its library documents it (what one per connection would cost). */
  state: string;
  make(): Compressor;
  flushKind: number;
}

const CODECS: Codec[] = [
  { name: "gzip 6", state: "~256 KiB (window 32 KiB, memLevel 8)", make: () => createGzip({ level: 6 }), flushKind: constants.Z_SYNC_FLUSH },
  {
    name: "gzip 6, 16 KiB window (sent)",
    state: "~80 KiB (windowBits 14, memLevel 5)",
    make: () => createGzip(STREAM_GZIP),
    flushKind: constants.Z_SYNC_FLUSH,
  },
  {
    name: "gzip 6, 4 KiB window",
    state: "~32 KiB (windowBits 12, memLevel 5)",
    make: () => createGzip({ level: 6, windowBits: 12, memLevel: 5 }),
    flushKind: constants.Z_SYNC_FLUSH,
  },
  { name: "gzip 1", state: "~256 KiB", make: () => createGzip({ level: 1 }), flushKind: constants.Z_SYNC_FLUSH },
  {
    name: "brotli 4",
    state: "window up to 4 MiB (lgwin 22)",
    make: () => createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
    flushKind: constants.BROTLI_OPERATION_FLUSH,
  },
  {
    name: "zstd 3",
    state: "~1 MiB and more (level 3)",
    make: () => createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 3 } }),
    flushKind: constants.ZSTD_e_flush,
  },
];

interface Pass {
  bytes: number;
  cpuUs: number;
  wallUs: number;
}

/** Writes each unit into one compressor and waits for its flush, as a connection would before sending. */
async function compressPass(codec: Codec, units: Uint8Array[]): Promise<Pass> {
  const compressor = codec.make();
  let bytes = 0;
  compressor.on("data", (chunk: Buffer) => {
    bytes += chunk.byteLength;
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const unit of units) {
    compressor.write(unit);
    await new Promise<void>((resolve) => compressor.flush(codec.flushKind, resolve));
  }
  const used = process.cpuUsage(cpu);
  const wallUs = (performance.now() - started) * 1000;
  compressor.close();
  return { bytes, cpuUs: used.user + used.system, wallUs };
}

/** The same loop with nothing compressed: what the measuring itself costs, taken off the codecs' CPU. */
async function emptyPass(units: Uint8Array[]): Promise<Pass> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const _ of units) await new Promise<void>((resolve) => setImmediate(resolve));
  const used = process.cpuUsage(cpu);
  return { bytes: 0, cpuUs: used.user + used.system, wallUs: (performance.now() - started) * 1000 };
}

interface CodecResult {
  codec: string;
  state: string;
  perEvent: { ratio: number; bytesPerEvent: number; cpuUsPerEvent: number; wallUsPerEvent: number };
  perWrite: { ratio: number; bytesPerEvent: number; cpuUsPerEvent: number; wallUsPerEvent: number };
}

async function measureCodec(codec: Codec, events: Uint8Array[], writes: Uint8Array[], rawBytes: number): Promise<CodecResult> {
  const summarize = async (units: Uint8Array[]) => {
    await compressPass(codec, units);
    const passes: Pass[] = [];
    const baselines: Pass[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      passes.push(await compressPass(codec, units));
      baselines.push(await emptyPass(units));
    }
    const loopCpu = median(baselines.map((pass) => pass.cpuUs));
    return {
      ratio: passes[0]!.bytes / rawBytes,
      bytesPerEvent: passes[0]!.bytes / events.length,
      cpuUsPerEvent: Math.max(0, median(passes.map((pass) => pass.cpuUs)) - loopCpu) / events.length,
      wallUsPerEvent: median(passes.map((pass) => pass.wallUs)) / units.length,
    };
  };
  return { codec: codec.name, state: codec.state, perEvent: await summarize(events), perWrite: await summarize(writes) };
}

/** The server's gzip, flushed per event, decoded incrementally: each event must come out whole at its flush. */
async function checkDecodable(events: Uint8Array[]): Promise<void> {
  const compressor = createGzip(STREAM_GZIP);
  const gunzip = createGunzip();
  let decoded = "";
  gunzip.on("data", (chunk: Buffer) => {
    decoded += decoder.decode(chunk, { stream: true });
  });
  compressor.on("data", (chunk: Buffer) => gunzip.write(chunk));
  for (const event of events.slice(0, 50)) {
    const expected = decoded + decoder.decode(event);
    compressor.write(event);
    await new Promise<void>((resolve) => compressor.flush(constants.Z_SYNC_FLUSH, resolve));
    await new Promise<void>((resolve) => gunzip.flush(constants.Z_SYNC_FLUSH, resolve));
    if (decoded !== expected) throw new Error("MISMATCH: an event flushed through gzip did not decode whole before the next");
  }
  compressor.close();
  gunzip.close();
}

/** The server's RSS with `OPEN_STREAMS` idle streams open, asking for `encoding` (or not), less its RSS before. */
async function rssPerStream(atrium: RunningAtrium, encoding: string | undefined): Promise<{ perStreamKiB: number; encoded: boolean }> {
  const before = rssBytes(atrium.server.pid);
  const aborts: AbortController[] = [];
  let encoded = false;
  try {
    for (let index = 0; index < OPEN_STREAMS; index++) {
      const abort = new AbortController();
      aborts.push(abort);
      const headers: Record<string, string> = { authorization: `Bearer ${atrium.token}`, "accept-encoding": encoding ?? "identity" };
      const response = await fetch(`${atrium.server.url}/v1/events/stream`, { headers, signal: abort.signal, decompress: false });
      encoded ||= response.headers.get("content-encoding") !== null;
      // The preamble has gone through the compressor, so its state is allocated.
      await response.body?.getReader().read();
    }
    await Bun.sleep(300);
    return { perStreamKiB: (rssBytes(atrium.server.pid) - before) / OPEN_STREAMS / 1024, encoded };
  } finally {
    for (const abort of aborts) abort.abort();
    await Bun.sleep(300);
  }
}

/** Runs the replies while one client reads the whole stream; the server's CPU is read around them. */
async function runStream(atrium: RunningAtrium, sessionId: string): Promise<RecordedStream> {
  const call = apiCaller(atrium.server.url, atrium.token);
  const stop = Promise.withResolvers<void>();
  const reads: Uint8Array[] = [];
  const { ended } = await recordStream(atrium.server.url, atrium.token, reads, stop.promise);
  try {
    const cpuBefore = cpuSeconds(atrium.server.pid);
    const started = performance.now();
    for (let turn = 0; turn < TOOL_TURNS; turn++) await call(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text: "turn" });
    await call(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text: "long" });
    // The stream says when the replies are done: a `session.message.completed` per reply.
    const expected = TOOL_TURNS + 1;
    const deadline = performance.now() + TURNS_TIMEOUT_MS;
    let scanned = 0;
    let completed = 0;
    let tail = "";
    while (completed < expected) {
      if (performance.now() > deadline) throw new Error(`the ${TOOL_TURNS + 1} replies did not complete within ${TURNS_TIMEOUT_MS / 1000} s`);
      await Bun.sleep(50);
      // Kept across reads: a kind name may be cut in two by a read boundary.
      const text =
        tail +
        reads
          .slice(scanned)
          .map((read) => decoder.decode(read))
          .join("");
      scanned = reads.length;
      const marker = "event: session.message.completed\n";
      completed += countOf(text, marker);
      tail = text.slice(Math.max(0, text.length - marker.length + 1));
    }
    await Bun.sleep(TAIL_MS);
    const serverCpuMs = (cpuSeconds(atrium.server.pid) - cpuBefore) * 1000;
    const wallMs = performance.now() - started;
    return { reads, serverCpuMs, wallMs };
  } finally {
    stop.resolve();
    await ended;
  }
}

/**
 * One session of the scripted agent: three turns of a Claude Code reply (text in 24-character chunks
 * and four tool calls), then a long reply of 400 chunks, each chunk 20 ms after the last. One client
 * reads the whole stream raw; its bytes are then compressed here by each codec, flushed after every
 * event and after every write the server made (several events when they queued up), in one compressor
 * per pass, as one per connection would.
 */
export async function measureStreamCompression(binary: string, log: (line: string) => void = () => {}): Promise<MeasurementResult> {
  const dir = tempDir("stream-compression");
  const server = scriptedAgentServer(dir, { turn: paced(TURN_STEPS), long: longReply() });
  let atrium: RunningAtrium | undefined;
  try {
    const started = await startScriptedAtrium(binary, server, "shop-api");
    atrium = started.atrium;
    const { call, projectId } = started;
    const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: SCRIPTED_HARNESS_ID, title: "Retries" });
    log("  streaming the replies ...");
    const recorded = await runStream(atrium, session.id);
    log(`  recorded ${recorded.reads.length} reads in ${(recorded.wallMs / 1000).toFixed(1)} s; ${OPEN_STREAMS} streams for the memory ...`);
    const memory = { plain: await rssPerStream(atrium, undefined), gzip: await rssPerStream(atrium, "gzip, deflate, br, zstd") };
    await call(200, "DELETE", `/v1/sessions/${session.id}`);

    const all = concat(recorded.reads);
    const frames = framesOf(all);
    const events = frames.filter((frame) => decoder.decode(frame.subarray(0, 4)) === "id: ");
    const kinds = new Map<string, number>();
    for (const event of events) {
      const kind = /\nevent: (\S+)\n/.exec(decoder.decode(event.subarray(0, 200)))?.[1] ?? "?";
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const rawBytes = all.byteLength;
    const writes = recorded.reads;
    await checkDecodable(frames);
    const results: CodecResult[] = [];
    for (const codec of CODECS) results.push(await measureCodec(codec, frames, writes, rawBytes));

    const serverUsPerEvent = (recorded.serverCpuMs * 1000) / events.length;
    log(`  ${events.length} events (${[...kinds].map(([kind, count]) => `${kind} ${count}`).join(", ")}) in ${writes.length} reads`);
    log(`  raw ${(rawBytes / events.length).toFixed(0)} B/event; server CPU ${serverUsPerEvent.toFixed(0)} µs/event`);
    log("  codec                        | per event: B/event ratio CPU µs wall µs | per write: B/event ratio CPU µs | state");
    for (const result of results) {
      const { perEvent: e, perWrite: w } = result;
      log(
        `  ${result.codec.padEnd(28)} | ${e.bytesPerEvent.toFixed(0).padStart(6)} ${e.ratio.toFixed(3)} ${e.cpuUsPerEvent.toFixed(1).padStart(6)} ` +
          `${e.wallUsPerEvent.toFixed(0).padStart(7)} | ` +
          `${w.bytesPerEvent.toFixed(0).padStart(6)} ${w.ratio.toFixed(3)} ${w.cpuUsPerEvent.toFixed(1).padStart(6)} | ${result.state}`,
      );
    }
    // The CPU figures "per 1,000 events" in ms are the µs-per-event values as they are: µs per event = ms per 1,000 events.
    const figures: Figure[] = [
      { label: "events in the stream", value: events.length, unit: "events" },
      { label: "writes of the server, as read from the socket", value: writes.length, unit: "events" },
      { label: "raw stream per 1,000 events", value: (rawBytes / events.length / 1024) * 1000, unit: "KiB" },
      { label: "server CPU per 1,000 events delivered (all its work for them)", value: serverUsPerEvent, unit: "ms" },
    ];
    for (const result of results) {
      const { perEvent, perWrite } = result;
      const target = result.codec === CODECS[1]!.name ? { comparison: "<" as const, value: TARGET_RATIO } : undefined;
      figures.push(
        { label: `${result.codec}, flushed per event: compressed / raw`, value: perEvent.ratio, unit: "ratio", ...(target ? { target } : {}) },
        { label: `${result.codec}, flushed per event: CPU per 1,000 events`, value: perEvent.cpuUsPerEvent, unit: "ms" },
        { label: `${result.codec}, flushed per event: CPU / server CPU per event`, value: perEvent.cpuUsPerEvent / serverUsPerEvent, unit: "ratio" },
        { label: `${result.codec}, flushed per server write: compressed / raw`, value: perWrite.ratio, unit: "ratio" },
        { label: `${result.codec}, flushed per server write: CPU per 1,000 events`, value: perWrite.cpuUsPerEvent, unit: "ms" },
      );
    }
    figures.push(
      { label: `server RSS per open stream, plain (${OPEN_STREAMS} open)`, value: memory.plain.perStreamKiB, unit: "KiB" },
      {
        label: `server RSS per open stream, asking for gzip (${memory.gzip.encoded ? "answered gzip" : "answered plain"})`,
        value: memory.gzip.perStreamKiB,
        unit: "KiB",
      },
    );
    return {
      method:
        `One session of the scripted ACP agent: ${TOOL_TURNS} turns of a Claude Code reply (24-character text chunks, a Read, an Edit, ` +
        `a Write, a Bash run) and a reply of ${LONG_CHUNKS} chunks, a chunk every ${PACE_MS} ms; one client reads GET /v1/events/stream ` +
        `raw (Accept-Encoding: identity); that exact byte sequence is then compressed in this process through node:zlib streams, one ` +
        `compressor per pass, flushed (Z_SYNC_FLUSH, BROTLI_OPERATION_FLUSH, ZSTD_e_flush) after every event and after every read of ` +
        `the socket (the server's writes); CPU is process.cpuUsage less the same loop without compression, median of ${PASSES} passes; ` +
        `the server's CPU from /proc/<pid>/stat over the replies, divided by the events delivered; RSS with ${OPEN_STREAMS} idle ` +
        `streams open less before; ${pinning}.`,
      figures,
      details: { kinds: Object.fromEntries(kinds), rawBytes, serverCpuMs: recorded.serverCpuMs, wallMs: recorded.wallMs, results, memory },
    };
  } finally {
    await atrium?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

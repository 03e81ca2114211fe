import { apiCaller, type ApiCall } from "../lib/api.ts";
import { OFFLINE_CONFIG, startAtrium, type RunningAtrium } from "../lib/atrium.ts";
import { DESKTOP, launchBenchBrowser, PHONE, type BenchBrowser, type Viewport } from "../lib/browser.ts";
import { awaitHarnessReady, type HarnessReadiness } from "../lib/harness-ready.ts";
import { pinning } from "../lib/processes.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { median } from "../lib/stats.ts";
import { frameStats, LONG_FRAME_MS, replyDone, replyText, startFrameLog, stopFrameLog, type FrameStats } from "./console-stream-frames.ts";

const CHUNKS = 20_000;
/** 20,000 chunks stream in about 0.6 s here; this many run for about 5 s, long enough to show a steady state. */
const LONG_CHUNKS = 200_000;
const ROUNDS = 3;
/** Issue 19: the console draws a reply of 20,000 chunks at 30 frames a second or more. */
const TARGET_FPS = 30;
interface NamedViewport {
  name: string;
  size: Viewport;
}

const VIEWPORTS: NamedViewport[] = [
  { name: "phone", size: PHONE },
  { name: "desktop", size: DESKTOP },
];
const HARNESS_READY_MS = 15_000;
const TURN_TIMEOUT_MS = 120_000;
/** Frames are recorded this long past the reply's end, so that its last frame has an end too. */
const TAIL_MS = 200;
/** After the reply, before the idle baseline: the page's last requests (marking the session read) settle. */
const SETTLE_MS = 500;
const DONE_POLL_MS = 100;

/** What `/long N` streams: `chunk 0 chunk 1 … chunk N-1 ` (src/acp-echo/echo-agent.ts). */
const longReply = (chunks: number) => Array.from({ length: chunks }, (_, index) => `chunk ${index} `).join("");
const megabytes = (chunks: number) => (longReply(chunks).length / 1e6).toFixed(2);

interface StreamRound {
  viewport: string;
  chunks: number;
  streaming: FrameStats;
  /** Page updates while it streamed: each draws the text that came since the last. */
  updates: number;
  /** The same page, the reply shown and nothing streaming, for as long as the reply streamed. */
  idle: FrameStats;
}

/**
 * One reply: a new echo session, its page opened in a fresh context and loaded, frames recorded while
 * `/long N` is sent through the API and streams, then as long again idle. The text shown must be the reply.
 */
async function streamRound(
  browser: BenchBrowser,
  atrium: RunningAtrium,
  call: ApiCall,
  projectId: string,
  viewport: NamedViewport,
  chunks: number,
): Promise<StreamRound> {
  const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: "echo", title: `Stream of ${chunks}` });
  const context = await browser.signedInContext(atrium.token, viewport.size);
  try {
    const page = await context.newPage();
    await page.goto(`${atrium.server.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.getByLabel("Prompt", { exact: true }).waitFor();
    await page.evaluate(startFrameLog);
    await call(201, "POST", `/v1/sessions/${session.id}/prompts`, { text: `/long ${chunks}` });
    await page.waitForFunction(replyDone, undefined, { timeout: TURN_TIMEOUT_MS, polling: DONE_POLL_MS });
    await Bun.sleep(TAIL_MS);
    const streamed = await page.evaluate(stopFrameLog);
    const streaming = frameStats(streamed.frames, streamed.firstDeltaMs!, streamed.doneMs!);
    if ((await page.evaluate(replyText)) !== longReply(chunks)) throw new Error(`MISMATCH: the page does not show the ${chunks} chunks joined`);
    await Bun.sleep(SETTLE_MS);
    await page.evaluate(startFrameLog);
    await Bun.sleep(streaming.elapsedMs + TAIL_MS);
    const quiet = await page.evaluate(stopFrameLog);
    const idle = frameStats(quiet.frames, quiet.frames[0]!, quiet.frames[0]! + streaming.elapsedMs);
    return { viewport: viewport.name, chunks, streaming, updates: streamed.updates, idle };
  } finally {
    await context.close();
    // Stops the session's agent, which the server then reaps (its CPU is not someone else's).
    await call(200, "DELETE", `/v1/sessions/${session.id}`);
  }
}

/** The figures of one viewport and reply length, medians over its rounds (the longest frame: the worst). */
function roundFigures(rounds: StreamRound[], withTarget: boolean): Figure[] {
  const { viewport, chunks } = rounds[0]!;
  const of = (pick: (round: StreamRound) => number) => median(rounds.map(pick));
  const fps = of((round) => round.streaming.framesPerSecond);
  const idleFps = of((round) => round.idle.framesPerSecond);
  const name = `${chunks.toLocaleString("en-US")} chunks, ${viewport}`;
  return [
    {
      label: `${name}: frames per second while streaming`,
      value: fps,
      unit: "fps",
      ...(withTarget ? { target: { comparison: ">=", value: TARGET_FPS } } : {}),
    },
    { label: `${name}: longest frame`, value: Math.max(...rounds.map((round) => round.streaming.longestMs)), unit: "ms" },
    { label: `${name}: frames over ${LONG_FRAME_MS} ms`, value: of((round) => round.streaming.longSharePercent), unit: "%" },
    { label: `${name}: frame p95`, value: of((round) => round.streaming.p95Ms), unit: "ms" },
    { label: `${name}: the same page idle, frames per second (baseline)`, value: idleFps, unit: "fps" },
    { label: `${name}: ratio streaming / idle`, value: fps / idleFps, unit: "ratio" },
    { label: `${name}: first delta to the end of the turn`, value: of((round) => round.streaming.elapsedMs), unit: "ms" },
    { label: `${name}: page updates drawing new text`, value: of((round) => round.updates), unit: "events" },
  ];
}

/**
 * A session view of the built-in echo agent while it streams `/long 20000` (and `/long 200000`), on a
 * phone and a desktop viewport: the page's animation frames counted with requestAnimationFrame from
 * the reply's first text to the end of its turn, against the same page idle for as long.
 */
export async function measureConsoleStream(binary: string): Promise<MeasurementResult> {
  const atrium = await startAtrium(binary, {}, OFFLINE_CONFIG);
  let browser: BenchBrowser | undefined;
  try {
    const call = apiCaller(atrium.server.url, atrium.token);
    await awaitHarnessReady(() => call<HarnessReadiness[]>(200, "GET", "/v1/harnesses"), "echo", HARNESS_READY_MS);
    const project = await call<{ id: string }>(201, "POST", "/v1/projects", { isScratch: true, name: "Streaming" });
    browser = await launchBenchBrowser();
    // Unmeasured: the first page load and the first agent of the run are slower than the rest.
    await streamRound(browser, atrium, call, project.id, VIEWPORTS[0]!, CHUNKS);
    const figures: Figure[] = [];
    const rounds: StreamRound[] = [];
    for (const viewport of VIEWPORTS) {
      const short: StreamRound[] = [];
      for (let round = 0; round < ROUNDS; round++) short.push(await streamRound(browser, atrium, call, project.id, viewport, CHUNKS));
      const long = await streamRound(browser, atrium, call, project.id, viewport, LONG_CHUNKS);
      figures.push(...roundFigures(short, true), ...roundFigures([long], false));
      rounds.push(...short, long);
    }
    return {
      method:
        `Debian's headless Chromium (all its processes on CPU 1) opens a new echo session's page in a fresh context, at ` +
        `${VIEWPORTS.map(({ name, size }) => `${size.width}×${size.height} (${name})`).join(" and ")}; once it is loaded, ` +
        `${"`/long N`"} is sent through the API and the page records every requestAnimationFrame from the frame that drew the reply's ` +
        `first text to the one that removed its data-generating (a frame lasts until the next begins); the text shown is checked ` +
        `equal to the chunks joined; frames over ${LONG_FRAME_MS} ms missed a vsync or more; baseline: the same page, idle after the ` +
        `reply, for as long; ${ROUNDS} rounds of ${CHUNKS.toLocaleString("en-US")} chunks (${megabytes(CHUNKS)} MB; medians) and one of ` +
        `${LONG_CHUNKS.toLocaleString("en-US")} (${megabytes(LONG_CHUNKS)} MB) per viewport, after an unmeasured round; the server and ` +
        `its agent on CPU 0; ${pinning}.`,
      figures,
      details: { chunks: CHUNKS, longChunks: LONG_CHUNKS, rounds },
    };
  } finally {
    await browser?.close();
    await atrium.stop();
  }
}

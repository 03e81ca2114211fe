import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApiCall } from "../lib/api.ts";
import { OFFLINE_CONFIG, type RunningAtrium } from "../lib/atrium.ts";
import { launchBenchBrowser, PHONE, type BenchBrowser } from "../lib/browser.ts";
import { pinning, tempDir } from "../lib/processes.ts";
import { SCRIPTED_HARNESS_ID, type ScriptedAtrium, startScriptedAtrium } from "../lib/scripted-agent.ts";
import type { Figure, MeasurementResult } from "../lib/report.ts";
import { median } from "../lib/stats.ts";
import { type CodeBlock, markdownReply, type MarkdownReply, streamChunks } from "./console-markdown-reply.ts";
import { type FrameLog, frameStats, LONG_FRAME_MS, replyDone, startFrameLog, stopFrameLog, type FrameStats } from "./console-stream-frames.ts";

const REPLY_BYTES = 1_000_000;
const CODE_BLOCKS = 200;
const CHUNKS = 20_000;
const ROUNDS = 3;
/** The requirement: a long markdown reply with code keeps 30 frames a second or more on a phone. */
const TARGET_FPS = 30;
/** The repository's scripted ACP agent (test/fixtures/scripted-agent), declared as a harness in config.json. */
const AGENT = join(import.meta.dir, "..", "..", "test", "fixtures", "scripted-agent", "scripted-agent");
export const PROMPT = "Write the whole change up, with its code.";
const TURN_TIMEOUT_MS = 120_000;
/** Frames are recorded past the reply's end for this long (and one more frame): the second after it is a figure. */
const AFTER_MS = 1_000;
/** After the reply, before the idle baseline: the page's last requests (marking the session read) settle. */
const SETTLE_MS = 500;
const DONE_POLL_MS = 100;
/** How long the page may take, after the turn ended, to show all the code blocks; and the API to hold all the text. */
const SHOWN_TIMEOUT_MS = 10_000;

interface ShownBlock {
  language: string;
  code: string;
}

interface CodePageWindow {
  document: {
    querySelectorAll(selector: string): ArrayLike<{
      querySelectorAll(selector: string): ArrayLike<{ querySelector(selector: string): { textContent: string | null } | null }>;
      querySelector(selector: string): { textContent: string | null } | null;
    }>;
  };
}

/** Whether a frame began more than `ms` after the reply's turn ended. */
function framesPast(ms: number): boolean {
  const log = (globalThis as unknown as { frameLog?: FrameLog }).frameLog;
  return log?.doneMs != null && (log.frames.at(-1) ?? 0) > log.doneMs + ms;
}

/** Whether the frames recorded since the log started span more than `ms` (and the frame under way then has ended). */
function idleCovers(ms: number): boolean {
  const frames = (globalThis as unknown as { frameLog?: FrameLog }).frameLog?.frames ?? [];
  return frames.length > 1 && frames.at(-1)! > frames[0]! + ms;
}

/** Whether the last reply on the page shows `count` code blocks or more. */
function allBlocksShown(count: number): boolean {
  const replies = (globalThis as unknown as CodePageWindow).document.querySelectorAll(".message.assistant");
  return replies.length > 0 && replies[replies.length - 1]!.querySelectorAll(".code-block").length >= count;
}

/** The last reply's code blocks as the page shows them: the language named above each, and the code's text. */
function shownBlocks(): { blocks: ShownBlock[]; highlighted: number; headings: number } {
  const replies = (globalThis as unknown as CodePageWindow).document.querySelectorAll(".message.assistant");
  const reply = replies[replies.length - 1];
  if (!reply) return { blocks: [], highlighted: 0, headings: 0 };
  const blocks = Array.from(reply.querySelectorAll(".code-block"), (block) => ({
    language: block.querySelector(".code-language")?.textContent ?? "",
    code: block.querySelector("pre code")?.textContent ?? "",
  }));
  return { blocks, highlighted: reply.querySelectorAll('code[data-highlighted="true"]').length, headings: reply.querySelectorAll("h2").length };
}

/** What differs between the blocks written and the blocks shown, or null when they are the same. */
function blocksMismatch(written: CodeBlock[], shown: ShownBlock[]): string | null {
  if (shown.length !== written.length) return `the page shows ${shown.length} code blocks, not ${written.length}`;
  const index = written.findIndex((block, at) => block.language !== shown[at]!.language || block.code.trimEnd() !== shown[at]!.code.trimEnd());
  return index === -1 ? null : `code block ${index + 1} (${written[index]!.language}) is not shown as written`;
}

interface ItemView {
  role: string;
  text: string;
  isGenerating: boolean;
}

/** Polls the session until its reply is complete, and returns its text as the API stores it. */
async function storedReply(call: ApiCall, sessionId: string): Promise<string> {
  const deadline = performance.now() + SHOWN_TIMEOUT_MS;
  for (;;) {
    const detail = await call<{ conversation: ItemView[] }>(200, "GET", `/v1/sessions/${sessionId}?limit=1`);
    const reply = detail.conversation.findLast((item) => item.role === "assistant");
    if (reply && !reply.isGenerating) return reply.text;
    if (performance.now() > deadline) throw new Error("the reply was still generating in the API after its turn ended on the page");
    await Bun.sleep(DONE_POLL_MS);
  }
}

interface MarkdownRound {
  streaming: FrameStats;
  /** The second after the turn ended: the last text drawn, code coloured. */
  after: FrameStats;
  updates: number;
  idle: FrameStats;
  /** Code blocks coloured by the highlighter a second after the turn ended. */
  highlighted: number;
}

/**
 * One reply: a new session of the scripted agent, its page opened in a fresh phone context and loaded,
 * frames recorded while the prompt is sent through the API and the reply streams (and a second past
 * its end), then as long again idle. The page must show every code block as written, and the API
 * hold the markdown exactly.
 */
async function markdownRound(browser: BenchBrowser, atrium: RunningAtrium, call: ApiCall, projectId: string, reply: MarkdownReply): Promise<MarkdownRound> {
  const session = await call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: SCRIPTED_HARNESS_ID, title: "Markdown reply" });
  const context = await browser.signedInContext(atrium.token, PHONE);
  try {
    const page = await context.newPage();
    await page.goto(`${atrium.server.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.getByLabel("Prompt", { exact: true }).waitFor();
    await page.evaluate(startFrameLog);
    await call(201, "POST", `/v1/sessions/${session.id}/prompts`, { text: PROMPT });
    await page.waitForFunction(replyDone, undefined, { timeout: TURN_TIMEOUT_MS, polling: DONE_POLL_MS });
    // The second after the end, and the frame under way then, must have ended: however long the page is busy.
    await page.waitForFunction(framesPast, AFTER_MS, { timeout: TURN_TIMEOUT_MS, polling: DONE_POLL_MS });
    const streamed = await page.evaluate(stopFrameLog);
    const streaming = frameStats(streamed.frames, streamed.firstDeltaMs!, streamed.doneMs!);
    const after = frameStats(streamed.frames, streamed.doneMs!, streamed.doneMs! + AFTER_MS);
    if ((await storedReply(call, session.id)) !== reply.markdown) throw new Error("MISMATCH: the reply the API holds is not the markdown streamed");
    // Drawn by the frame that ended the turn, normally; checked below, with what differs, if not.
    await page.waitForFunction(allBlocksShown, CODE_BLOCKS, { timeout: SHOWN_TIMEOUT_MS, polling: DONE_POLL_MS }).catch(() => undefined);
    const shown = await page.evaluate(shownBlocks);
    const mismatch = blocksMismatch(reply.blocks, shown.blocks);
    if (mismatch) throw new Error(`MISMATCH: ${mismatch}`);
    if (shown.headings !== reply.headings) throw new Error(`MISMATCH: the page shows ${shown.headings} level-2 headings, not ${reply.headings}`);
    await Bun.sleep(SETTLE_MS);
    await page.evaluate(startFrameLog);
    await page.waitForFunction(idleCovers, streaming.elapsedMs, { timeout: TURN_TIMEOUT_MS, polling: DONE_POLL_MS });
    const quiet = await page.evaluate(stopFrameLog);
    const idle = frameStats(quiet.frames, quiet.frames[0]!, quiet.frames[0]! + streaming.elapsedMs);
    return { streaming, after, updates: streamed.updates, idle, highlighted: shown.highlighted };
  } finally {
    await context.close();
    // Stops the session's agent, which the server then reaps (its CPU is not someone else's).
    await call(200, "DELETE", `/v1/sessions/${session.id}`);
  }
}

/** Medians over the rounds (the longest frame: the worst). */
function roundFigures(rounds: MarkdownRound[]): Figure[] {
  const of = (pick: (round: MarkdownRound) => number) => median(rounds.map(pick));
  const fps = of((round) => round.streaming.framesPerSecond);
  const idleFps = of((round) => round.idle.framesPerSecond);
  const name = `${CHUNKS.toLocaleString("en-US")} chunks, phone`;
  return [
    { label: `${name}: frames per second while streaming`, value: fps, unit: "fps", target: { comparison: ">=", value: TARGET_FPS } },
    { label: `${name}: longest frame`, value: Math.max(...rounds.map((round) => round.streaming.longestMs)), unit: "ms" },
    { label: `${name}: frames over ${LONG_FRAME_MS} ms`, value: of((round) => round.streaming.longSharePercent), unit: "%" },
    { label: `${name}: frame p95`, value: of((round) => round.streaming.p95Ms), unit: "ms" },
    { label: `${name}: the same page idle, frames per second (baseline)`, value: idleFps, unit: "fps" },
    { label: `${name}: ratio streaming / idle`, value: fps / idleFps, unit: "ratio" },
    { label: `${name}: first delta to the end of the turn`, value: of((round) => round.streaming.elapsedMs), unit: "ms" },
    { label: `${name}: page updates drawing new text`, value: of((round) => round.updates), unit: "events" },
    { label: `${name}: the second after the end, longest frame`, value: Math.max(...rounds.map((round) => round.after.longestMs)), unit: "ms" },
    { label: `${name}: the second after the end, frames per second`, value: of((round) => round.after.framesPerSecond), unit: "fps" },
  ];
}

export interface MarkdownAtrium extends ScriptedAtrium {
  reply: MarkdownReply;
  chunks: string[];
  stop(): Promise<void>;
}

/**
 * The reply and its chunks, the scripted agent's script saying to stream them for `PROMPT` (as fast as
 * it can, or pausing a millisecond every `sleepEvery` chunks), and the
 * compiled server with the agent as harness `scripted` (ready) and a project. The agent inherits the
 * server's environment, and with it its CPU.
 */
export async function startMarkdownAtrium(binary: string, sleepEvery?: number): Promise<MarkdownAtrium> {
  const reply = markdownReply(REPLY_BYTES, CODE_BLOCKS);
  const chunks = streamChunks(reply.markdown, CHUNKS);
  const dir = tempDir("markdown");
  const scriptFile = join(dir, "script.json");
  // With `sleepEvery` (the profiler's slower stream), the agent sleeps a millisecond after that many chunks.
  const steps = chunks.flatMap((chunk, index) => (sleepEvery && index % sleepEvery === sleepEvery - 1 ? [{ chunk }, { sleep: 1 }] : [{ chunk }]));
  writeFileSync(scriptFile, JSON.stringify({ prompts: { [PROMPT]: steps } }));
  const env = { SCRIPTED_AGENT_SCRIPT: scriptFile, SCRIPTED_AGENT_STATE: join(dir, "agent-state"), SCRIPTED_AGENT_BUN: process.execPath };
  const config = { ...OFFLINE_CONFIG, harnesses: [{ id: SCRIPTED_HARNESS_ID, name: "Scripted agent", executable: AGENT }] };
  let atrium: RunningAtrium | undefined;
  const stop = async () => {
    await atrium?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = await startScriptedAtrium(binary, { env, config }, "Markdown");
    atrium = started.atrium;
    return { reply, chunks, ...started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The session view on a phone while the scripted agent streams a 1 MB markdown reply with 200 fenced
 * code blocks in 20,000 chunks: animation frames from the reply's first text to the end of its turn,
 * against the same page idle for as long.
 */
export async function measureConsoleMarkdown(binary: string): Promise<MeasurementResult> {
  const { reply, chunks, atrium, call, projectId, stop } = await startMarkdownAtrium(binary);
  let browser: BenchBrowser | undefined;
  try {
    browser = await launchBenchBrowser();
    // Unmeasured: the first page load, the first agent and the highlighter's first load of the run are slower than the rest.
    await markdownRound(browser, atrium, call, projectId, reply);
    const rounds: MarkdownRound[] = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push(await markdownRound(browser, atrium, call, projectId, reply));
    const languages = [...new Set(reply.blocks.map((block) => block.language))];
    const lines = reply.blocks.map((block) => block.code.split("\n").length);
    return {
      method:
        `The repository's scripted ACP agent (test/fixtures/scripted-agent, a harness in config.json) streams a ${(reply.markdown.length / 1e6).toFixed(2)} MB ` +
        `markdown reply (seeded: ${CODE_BLOCKS} sections with a heading, paragraphs with inline code, bold and links, lists, and a fenced code ` +
        `block of ${Math.min(...lines)}–${Math.max(...lines)} lines in ${languages.join(", ")}) in ${CHUNKS.toLocaleString("en-US")} chunks ` +
        `of about equal size cut anywhere (${Math.min(...chunks.map((chunk) => chunk.length))}–${Math.max(...chunks.map((chunk) => chunk.length))} ` +
        `characters); Debian's headless Chromium (all its processes on CPU 1) opens a new session's page at ${PHONE.width}×${PHONE.height} in a ` +
        `fresh context, the prompt is sent through the API, and the page records every requestAnimationFrame from the frame that drew the ` +
        `reply's first text to the one that removed its data-generating (and the second after); then the API's text is checked equal to the ` +
        `markdown, and the page's ${CODE_BLOCKS} code blocks (language and code) and ${reply.headings} headings checked as written; frames over ` +
        `${LONG_FRAME_MS} ms missed a vsync or more; baseline: the same page idle after the reply, for as long; ${ROUNDS} rounds (medians) after ` +
        `an unmeasured one; the server and its agent on CPU 0; ${pinning}.`,
      figures: roundFigures(rounds),
      details: { bytes: reply.markdown.length, codeBlocks: CODE_BLOCKS, chunks: CHUNKS, languages, rounds },
    };
  } finally {
    await browser?.close();
    await stop();
  }
}

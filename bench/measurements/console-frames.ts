/**
 * A session page's frames while a reply streams into it (`console-stream`: the echo agent's
 * `/long N`; `console-markdown`: a 1 MB markdown reply with 200 code blocks), against the same page
 * idle for as long after the reply.
 */
import { scriptedAgent } from "../lib/agents.ts";
import { newSession, prompt, scratchProject, type AtriumOptions } from "../lib/atrium.ts";
import { DESKTOP, PHONE, type Viewport } from "../lib/browser.ts";
import { consoleWorld, sessionRoute, visit, type ConsoleWorld } from "../lib/console.ts";
import { frameStats, framesCover, framesPastDone, LONG_FRAME_MS, replyShown, startFrameLog, stopFrameLog } from "../lib/frames.ts";
import { measurement, type Bench } from "../lib/measurement.ts";
import { atLeast, type Figure } from "../lib/report.ts";
import { medianOf, ratio } from "../lib/stats.ts";
import { markdownReply, streamChunks } from "./console-markdown-reply.ts";

const TURN_TIMEOUT_MS = 120_000;
/** Frames are recorded this long past the reply's end (and one more frame): the second after it is a figure. */
const AFTER_MS = 1_000;
/** After the reply, before the idle baseline: the page's last requests (marking the session read) settle. */
const SETTLE_MS = 500;
/** Checked when the reply is drawn: the page shows what streamed. */
type Expected = { text: string } | { codeBlocks: number };

type World = ConsoleWorld & { projectId: string; harness: string };

const seedWorld = (bench: Bench, harness: string, options: AtriumOptions): Promise<World> =>
  consoleWorld(bench, { ...options, harness }, async (atrium) => ({ projectId: await scratchProject(atrium, "Streaming"), harness }));

/**
 * One reply: a new session, its page opened in a fresh context and loaded, frames recorded while
 * `text` is sent through the API and the reply streams (and a second past its end), then as long
 * again idle. The session is deleted after, which stops its agent.
 */
async function streamRound(world: World, viewport: Viewport, text: string, expected: Expected) {
  const { atrium, projectId, harness } = world;
  const sessionId = await newSession(atrium, projectId, harness, "Streaming");
  try {
    return await visit(world, sessionRoute(sessionId), { viewport }, async (page) => {
      await page.getByLabel("Prompt", { exact: true }).waitFor();
      await page.evaluate(startFrameLog);
      await prompt(atrium, sessionId, text);
      // The second after the end, and the frame under way then, must have ended: however long the page is busy.
      await page.waitForFunction(framesPastDone, AFTER_MS, { timeout: TURN_TIMEOUT_MS, polling: 100 });
      const streamed = await page.evaluate(stopFrameLog);
      const shown = await page.evaluate(replyShown);
      if ("text" in expected ? shown.text !== expected.text : shown.codeBlocks < expected.codeBlocks) {
        throw new Error(`MISMATCH: the page does not show the reply (${shown.text.length} characters, ${shown.codeBlocks} code blocks)`);
      }
      const streaming = frameStats(streamed.frames, streamed.firstDeltaMs!, streamed.doneMs!);
      await Bun.sleep(SETTLE_MS);
      await page.evaluate(startFrameLog);
      await page.waitForFunction(framesCover, streaming.elapsedMs, { timeout: TURN_TIMEOUT_MS, polling: 100 });
      const quiet = await page.evaluate(stopFrameLog);
      return {
        streaming,
        /** The second after the turn ended: the last text drawn, code coloured. */
        after: frameStats(streamed.frames, streamed.doneMs!, streamed.doneMs! + AFTER_MS),
        /** Page updates while it streamed: each draws the text that came since the last. */
        updates: streamed.updates,
        /** The same page, the reply shown and nothing streaming, for as long as the reply streamed. */
        idle: frameStats(quiet.frames, quiet.frames[0]!, quiet.frames[0]! + streaming.elapsedMs),
      };
    });
  } finally {
    await atrium.call(200, "DELETE", `/v1/sessions/${sessionId}`);
  }
}

type Round = Awaited<ReturnType<typeof streamRound>>;

/** Medians over the rounds (the longest frame: the worst). */
function roundFigures(name: string, rounds: Round[], target: boolean): Figure[] {
  const of = (pick: (round: Round) => number) => medianOf(rounds, pick);
  const fps = of((round) => round.streaming.framesPerSecond);
  const idleFps = of((round) => round.idle.framesPerSecond);
  return [
    { label: `${name}: frames per second while streaming`, value: fps, unit: "fps", ...(target ? { target: atLeast(30) } : {}) },
    { label: `${name}: longest frame (worst round)`, value: Math.max(...rounds.map((round) => round.streaming.longestMs)), unit: "ms" },
    { label: `${name}: frames over ${LONG_FRAME_MS} ms`, value: of((round) => round.streaming.longSharePercent), unit: "%" },
    { label: `${name}: frame p95`, value: of((round) => round.streaming.p95Ms), unit: "ms" },
    { label: `${name}: the same page idle, frames per second (baseline)`, value: idleFps, unit: "fps" },
    { label: `${name}: ratio streaming / idle`, value: ratio(fps, idleFps), unit: "ratio" },
    { label: `${name}: first delta to the end of the turn`, value: of((round) => round.streaming.elapsedMs), unit: "ms" },
    { label: `${name}: page updates drawing new text`, value: of((round) => round.updates), unit: "count" },
    { label: `${name}: the second after the end, longest frame`, value: of((round) => round.after.longestMs), unit: "ms" },
    { label: `${name}: the second after the end, frames per second`, value: of((round) => round.after.framesPerSecond), unit: "fps" },
  ];
}

const FRAMES_WHAT =
  "the page records every requestAnimationFrame from the frame that drew the reply's first text to the one that removed its " +
  "data-generating with nothing left to draw (a frame lasts until the next begins; over 33 ms missed a vsync or more), and the second after; " +
  "the page is checked to show the reply.";
const IDLE_WHAT = "the same page idle, half a second after the reply, for as long as the reply streamed.";

/** What `/long N` streams: `chunk 0 chunk 1 … chunk N-1 ` (src/acp-echo/echo-agent.ts). */
const longReply = (chunks: number) => Array.from({ length: chunks }, (_, index) => `chunk ${index} `).join("");
const SHORT = 20_000;
const LONG = 200_000;

export const consoleStream = measurement({
  key: "console-stream",
  title: "Console: frames while a reply of 20,000 chunks streams",
  seed: {
    what: "the compiled binary (offline by its config) with its echo agent, a scratch project; Debian's headless Chromium, all its processes on the load CPU.",
    run: (bench) => seedWorld(bench, "echo", { config: {} }),
  },
  action: {
    what:
      `a new echo session's page opened in a fresh context at ${PHONE.width}×${PHONE.height} (phone) and ${DESKTOP.width}×${DESKTOP.height} ` +
      `(desktop); once loaded, \`/long ${SHORT}\` (${(longReply(SHORT).length / 1e6).toFixed(2)} MB) and \`/long ${LONG}\` ` +
      `(${(longReply(LONG).length / 1e6).toFixed(2)} MB) are sent through the API; ${FRAMES_WHAT}`,
    async run(world) {
      const both = async (viewport: Viewport) => ({
        short: await streamRound(world, viewport, `/long ${SHORT}`, { text: longReply(SHORT) }),
        long: await streamRound(world, viewport, `/long ${LONG}`, { text: longReply(LONG) }),
      });
      return { phone: await both(PHONE), desktop: await both(DESKTOP) };
    },
  },
  baseline: { what: IDLE_WHAT },
  rounds: { warmup: 1, measured: 3 },
  figures: ({ action }) =>
    (["phone", "desktop"] as const).flatMap((viewport) => {
      const [short, long] = [action.map((round) => round[viewport].short), action.map((round) => round[viewport].long)];
      return [...roundFigures(`20,000 chunks, ${viewport}`, short, true), ...roundFigures(`200,000 chunks, ${viewport}`, long, false)];
    }),
});

const MARKDOWN_PROMPT = "Write the whole change up, with its code.";
const CODE_BLOCKS = 200;

export const consoleMarkdown = measurement({
  key: "console-markdown",
  title: "Console: a 1 MB markdown reply, 200 code blocks, streaming in 20,000 chunks on a phone",
  seed: {
    what:
      "the compiled binary (offline by its config) with the repository's scripted ACP agent (test/fixtures/scripted-agent, on the server's " +
      `CPU) streaming a 1.00 MB markdown reply (seeded: ${CODE_BLOCKS} sections with a heading, paragraphs with inline code, bold and ` +
      "links, lists, and a fenced code block of 20–40 lines in one of 12 languages) as fast as it can, in 20,000 chunks cut anywhere; " +
      "Debian's headless Chromium, all its processes on the load CPU.",
    async run(bench) {
      const chunks = streamChunks(markdownReply(1_000_000, CODE_BLOCKS), 20_000);
      const agent = scriptedAgent(bench.tempDir("markdown"), { [MARKDOWN_PROMPT]: chunks.map((chunk) => ({ chunk })) });
      return seedWorld(bench, agent.harness, { config: agent.config, env: agent.env });
    },
  },
  action: {
    what: `a new session's page opened in a fresh context at ${PHONE.width}×${PHONE.height}; once loaded, the prompt is sent through the API; ${FRAMES_WHAT}`,
    run: (world) => streamRound(world, PHONE, MARKDOWN_PROMPT, { codeBlocks: CODE_BLOCKS }),
  },
  baseline: { what: IDLE_WHAT },
  rounds: { warmup: 1, measured: 3 },
  figures: ({ action }) => roundFigures("20,000 chunks, phone", action, true),
});

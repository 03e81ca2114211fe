import { rmSync } from "node:fs";
import type { Page } from "playwright-core";
import type { ApiCall } from "../lib/api.ts";
import type { RunningAtrium } from "../lib/atrium.ts";
import { launchBenchBrowser, PHONE, type BenchBrowser } from "../lib/browser.ts";
import { SCRIPTED_HARNESS_ID, scriptedAgentServer, startScriptedAtrium } from "../lib/scripted-agent.ts";
import { pinning, tempDir } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { median, summarize } from "../lib/stats.ts";
import {
  installSessionPaintProbe,
  readSessionLoad,
  sessionPaintSettled,
  textPaintSettled,
  type LongFrame,
  type PageRequest,
  type SessionLoad,
  type SessionProbeOptions,
} from "./console-session-probe.ts";
import { REPLY_END_TEXT, REPLY_TEXT, TOOL_CALLS_PER_REPLY, TURN_STEPS } from "./console-session-reply.ts";

const REPLIES = 500;
/** Unmeasured loads of each session first (the first also finds out whether the console draws tool cards). */
const WARMUP_LOADS = 2;
const LOADS = 7;
/** The issue's requirement: a session of 500 replies and 2,000 tool calls is on a phone's screen within 500 ms. */
const TARGET_FIRST_PAINT_MS = 500;
/** How long the first load waits for a `.tool-card` to appear once the reply's text is drawn. */
const TOOL_CARD_WAIT_MS = 5_000;
const LOAD_TIMEOUT_MS = 30_000;
/** How often Playwright asks the page whether the probe is done: rarely, so the asking costs the page nothing. */
const SETTLED_POLL_MS = 50;
/** After the paint, before the JS heap is read: the page's work after its first paint (code colouring) ends. */
const HEAP_SETTLE_MS = 1_000;
const SEED_TIMEOUT_MS = 15 * 60_000;
const IDLE_POLL_MS = 250;
/** After seeding: the server's write-behind (1 s) and checkpoint (2 s) have stored everything. */
const SEED_SETTLE_MS = 3_000;

interface ConversationItem {
  id: string;
  role: "user" | "assistant";
  text: string;
  isGenerating: boolean;
  stopReason: string | null;
}

interface Detail {
  session: { sidebarState: string };
  conversation: ConversationItem[];
  promptQueue: unknown[];
  nextBefore: string | null;
}

interface DetailsPage {
  entries: { payload: { type: string; status?: string | null } }[];
}

/** As the session tests wait (test/sessions/session-helpers.ts `idle`): no turn running, none queued, the last reply ended. */
const isIdle = (detail: Detail) =>
  detail.session.sidebarState !== "working" &&
  detail.promptQueue.length === 0 &&
  !detail.conversation.filter((item) => item.role === "assistant").at(-1)?.isGenerating;

/** Every item of the conversation, oldest first, page by page. */
async function wholeConversation(call: ApiCall, sessionId: string): Promise<ConversationItem[]> {
  const pages: ConversationItem[][] = [];
  let before: string | null | undefined;
  do {
    const page: Detail = await call<Detail>(200, "GET", `/v1/sessions/${sessionId}${before ? `?before=${before}` : ""}`);
    pages.unshift(page.conversation);
    before = page.nextBefore;
  } while (before);
  return pages.flat();
}

/**
 * Sends `REPLIES` prompts at once (they queue and run one by one) and waits for the session to be idle,
 * then checks that every reply holds the whole text and the last one its four finished tool calls.
 */
async function seedTurns(call: ApiCall, sessionId: string): Promise<void> {
  for (let index = 1; index <= REPLIES; index++) {
    await call(201, "POST", `/v1/sessions/${sessionId}/prompts`, { text: `Turn ${index}: make the upstream retries respect the request deadline.` });
  }
  const deadline = performance.now() + SEED_TIMEOUT_MS;
  while (!isIdle(await call<Detail>(200, "GET", `/v1/sessions/${sessionId}`))) {
    if (performance.now() > deadline) throw new Error(`the ${REPLIES} turns did not end within ${SEED_TIMEOUT_MS / 1000} s`);
    await Bun.sleep(IDLE_POLL_MS);
  }
  const items = await wholeConversation(call, sessionId);
  const replies = items.filter((item) => item.role === "assistant");
  const wrong = replies.filter((reply) => reply.text !== REPLY_TEXT || reply.stopReason !== "end_turn");
  if (replies.length !== REPLIES || items.length !== 2 * REPLIES || wrong.length > 0) {
    throw new Error(`seeding: ${items.length} items, ${replies.length} replies, ${wrong.length} of them not the whole reply ended well`);
  }
  const details = await call<DetailsPage>(200, "GET", `/v1/sessions/${sessionId}/transcript/${replies.at(-1)!.id}/details?limit=200`);
  const calls = details.entries.filter((entry) => entry.payload.type === "tool_call" && entry.payload.status === "completed");
  if (calls.length !== TOOL_CALLS_PER_REPLY) throw new Error(`seeding: the last reply has ${calls.length} finished tool calls, not ${TOOL_CALLS_PER_REPLY}`);
}

interface SessionRound extends SessionLoad {
  /** The page's JS heap after a garbage collection, a second after the paint. */
  heapBytes: number;
}

/** The JS heap the page holds after a garbage collection, through the DevTools protocol. */
async function heapAfterCollection(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send("HeapProfiler.collectGarbage");
    return (await cdp.send("Runtime.getHeapUsage")).usedSize;
  } finally {
    await cdp.detach();
  }
}

/** What the first load found out: whether the page draws tool cards at all, and how many the newest reply got. */
interface ToolCardSupport {
  drawn: boolean;
  inNewestReply: number;
}

/**
 * One first visit: a fresh context (no cache), `#/sessions/<id>` opened, the probe's notes once the
 * frame holding the newest reply's text was presented, and then the one with its tool cards too (if
 * they come within 5 s). With `findToolCards`, it then waits up to 5 s for the page to draw any
 * `.tool-card`, and up to 5 s more for the newest reply's.
 */
async function loadSession(
  browser: BenchBrowser,
  atrium: RunningAtrium,
  sessionId: string,
  probe: SessionProbeOptions,
  findToolCards = false,
): Promise<SessionRound & { toolCards?: ToolCardSupport }> {
  const context = await browser.signedInContext(atrium.token, PHONE);
  try {
    await context.addInitScript(installSessionPaintProbe, probe);
    const page = await context.newPage();
    await page.goto(`${atrium.server.url}/#/sessions/${encodeURIComponent(sessionId)}`);
    await page.waitForFunction(textPaintSettled, undefined, { timeout: LOAD_TIMEOUT_MS, polling: SETTLED_POLL_MS });
    const whole = page.waitForFunction(sessionPaintSettled, undefined, {
      timeout: probe.toolCards > 0 ? TOOL_CARD_WAIT_MS : LOAD_TIMEOUT_MS,
      polling: SETTLED_POLL_MS,
    });
    // Without them the figure is "never": the newest reply's cards did not come.
    if (probe.toolCards > 0) await whole.catch(() => {});
    else await whole;
    const load = await page.evaluate(readSessionLoad);
    let toolCards: ToolCardSupport | undefined;
    if (findToolCards) {
      const drawn = await page
        .waitForSelector(".tool-card", { timeout: TOOL_CARD_WAIT_MS })
        .then(() => true)
        .catch(() => false);
      const newest = page.locator(".message.assistant").last().locator(".tool-card");
      if (drawn) {
        await newest
          .nth(TOOL_CALLS_PER_REPLY - 1)
          .waitFor({ timeout: TOOL_CARD_WAIT_MS })
          .catch(() => {});
      }
      toolCards = { drawn, inNewestReply: await newest.count() };
    }
    await Bun.sleep(HEAP_SETTLE_MS);
    return { ...load, heapBytes: await heapAfterCollection(page), toolCards };
  } finally {
    await context.close();
  }
}

/** The frame over 50 ms that put the newest reply's text in the DOM, if it was one. */
const drawingFrame = (load: SessionLoad): LongFrame | undefined =>
  load.longFrames.find((frame) => load.textInDomMs !== null && frame.startMs <= load.textInDomMs && load.textInDomMs <= frame.startMs + frame.durationMs);

/** The session's own read, `GET /v1/sessions/{id}` with no query, among a load's requests. */
const detailRequest = (load: SessionLoad, sessionId: string): PageRequest | undefined =>
  load.requests.find((request) => request.path === `/v1/sessions/${encodeURIComponent(sessionId)}`);

/**
 * The console's session page at `#/sessions/<id>` on a 390×844 phone viewport, first visit each time:
 * from the start of the navigation to the first frame showing the newest of 500 replies (each of about
 * 1.3 KB of markdown and four tool calls: a Read, an Edit, a Write and a Bash run, as Claude Code's
 * turns are), its tool cards too where the console draws them; baseline: a session with no turns, to
 * the frame showing its page. One server, loads alternating between the two sessions.
 */
export async function measureConsoleSession(binary: string, log: (line: string) => void = () => {}): Promise<MeasurementResult> {
  const dir = tempDir("scripted");
  const server = scriptedAgentServer(dir, { "*": TURN_STEPS });
  let atrium: RunningAtrium | undefined;
  let browser: BenchBrowser | undefined;
  try {
    const started = await startScriptedAtrium(binary, server, "shop-api");
    atrium = started.atrium;
    const { call, projectId } = started;
    const newSession = (title: string) => call<{ id: string }>(201, "POST", "/v1/sessions", { projectId, harnessId: SCRIPTED_HARNESS_ID, title });
    const full = await newSession("Retries and deadlines");
    const empty = await newSession("Nothing yet");
    const seedStarted = performance.now();
    await seedTurns(call, full.id);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    log(`  seeded ${REPLIES} turns in ${seedSeconds.toFixed(1)} s`);
    await Bun.sleep(SEED_SETTLE_MS);

    browser = await launchBenchBrowser();
    const fullProbe: SessionProbeOptions = { replyEndText: REPLY_END_TEXT, toolCards: 0 };
    const emptyProbe: SessionProbeOptions = { replyEndText: null, toolCards: 0 };
    // The first load finds out whether the console draws tool cards: the later ones wait for the newest reply's then.
    const first = await loadSession(browser, atrium, full.id, fullProbe, true);
    const support = first.toolCards!;
    if (support.drawn) fullProbe.toolCards = TOOL_CALLS_PER_REPLY;
    log(`  tool cards: ${support.drawn ? "drawn" : "none within 5 s"}; ${support.inNewestReply} in the newest reply on the first load`);
    const withReplies: SessionRound[] = [];
    const without: SessionRound[] = [];
    for (let round = 0; round < WARMUP_LOADS + LOADS; round++) {
      const loaded = round === 0 ? first : await loadSession(browser, atrium, full.id, fullProbe);
      const baseline = await loadSession(browser, atrium, empty.id, emptyProbe);
      if (round < WARMUP_LOADS) continue;
      withReplies.push(loaded);
      without.push(baseline);
    }

    // A paint that never came (the newest reply's cards within 5 s of its text) counts as infinitely late.
    const summaryOf = (loads: SessionRound[], pick: (load: SessionRound) => number | null | undefined) =>
      summarize(loads.map((load) => pick(load) ?? Number.POSITIVE_INFINITY));
    const p50Of = (loads: SessionRound[], pick: (load: SessionRound) => number | null | undefined) => summaryOf(loads, pick).p50;
    const medianOf = (loads: SessionRound[], pick: (load: SessionRound) => number) => median(loads.map(pick));
    /** Over the loads where the drawing frame lasted over 50 ms (the only ones the browser describes). */
    const frameMedian = (pick: (frame: LongFrame) => number) => {
      const frames = withReplies.flatMap((load) => drawingFrame(load) ?? []);
      return frames.length === 0 ? Number.NaN : median(frames.map(pick));
    };
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const firstPaint = summaryOf(withReplies, (load) => load.paintMs);
    const textPaint = summaryOf(withReplies, (load) => load.textPaintMs);
    const emptyPaint = summaryOf(without, (load) => load.paintMs);
    const read = (load: SessionRound) => detailRequest(load, full.id);
    const readEmpty = (load: SessionRound) => detailRequest(load, empty.id);
    const kib = (bytes: number) => bytes / 1024;
    const transferred = (load: SessionRound) => kib(load.requests.reduce((sum, request) => sum + request.transferBytes, 0));
    const apiRequests = (load: SessionRound) => load.requests.filter((request) => request.path.startsWith("/v1/")).length;
    const cards = fullProbe.toolCards > 0;
    const what = cards ? `text and its ${fullProbe.toolCards} tool cards` : "text (the console drew no tool cards within 5 s)";
    const deltas = TURN_STEPS.filter((step) => "chunk" in step).length;
    return {
      method:
        `One session of the repository's scripted ACP agent given ${REPLIES} prompts through the API (queued, run one by one), each ` +
        `answered as claude-agent-acp sends a Claude Code turn: ${(REPLY_TEXT.length / 1024).toFixed(1)} KiB of markdown (a list, a ` +
        `fenced block) in ${deltas} deltas with ${TOOL_CALLS_PER_REPLY} tool calls among them (a Read of 40 lines, an Edit with a ` +
        `30-line diff, a Write of 20 lines, a Bash run with 15 lines of coloured output); Debian's headless Chromium opens ` +
        `${"`#/sessions/<id>`"} at ${PHONE.width}×${PHONE.height} in a fresh context each time (no cache; the token put in localStorage ` +
        `before the page's script runs), ${LOADS} loads after ${WARMUP_LOADS} unmeasured ones, alternating with the baseline: a session ` +
        `of the same server with no turns, measured to its page; a MutationObserver installed before the page's script adds an Element ` +
        `Timing marker in the task that puts the newest reply's ${what} in the DOM, and its renderTime, when that frame was presented, ` +
        `is the figure, in ms from navigation start (n/a: not within 5 s of the text, in half the loads or more); requests and bytes ` +
        `are those that had ended by then; the JS heap is read through the DevTools protocol after a garbage collection a second ` +
        `after the paint; the server and its agent on CPU 0, Chromium (all its processes) on CPU 1; ${pinning}.`,
      figures: [
        { label: "first paint of the newest reply, p50", value: firstPaint.p50, unit: "ms", target: { comparison: "<", value: TARGET_FIRST_PAINT_MS } },
        { label: "first paint of the newest reply, p95", value: firstPaint.p95, unit: "ms" },
        { label: "no turns: first paint of the session's page, p50 (baseline)", value: emptyPaint.p50, unit: "ms" },
        { label: "no turns: p95", value: emptyPaint.p95, unit: "ms" },
        { label: `ratio p50, ${REPLIES} replies / none`, value: firstPaint.p50 / emptyPaint.p50, unit: "ratio" },
        { label: "ratio p95", value: firstPaint.p95 / emptyPaint.p95, unit: "ratio" },
        { label: "tool cards drawn in the page (1: yes, 0: none within 5 s)", value: support.drawn ? 1 : 0, unit: "items" },
        { label: "loads whose newest reply showed its tool cards", value: withReplies.filter((load) => load.paintMs !== null).length, unit: "runs" },
        { label: "newest reply's text painted, p50", value: textPaint.p50, unit: "ms" },
        { label: "newest reply's text painted, p95", value: textPaint.p95, unit: "ms" },
        {
          label: "its top in that frame, in screens below the screen's top (median; 0-1: on screen)",
          value: medianOf(withReplies, (load) => (load.newestTopPx ?? Number.NaN) / load.viewportHeightPx),
          unit: "ratio",
        },
        { label: "replies drawn (median)", value: medianOf(withReplies, (load) => load.replies), unit: "items" },
        { label: "tool cards in the page with the text (median)", value: medianOf(withReplies, (load) => load.toolCardsInPage), unit: "items" },
        { label: "the page's first contentful paint (its top bar), p50", value: p50Of(withReplies, (load) => load.firstContentfulPaintMs), unit: "ms" },
        { label: "GET /v1/sessions/{id} sent, p50", value: p50Of(withReplies, (load) => read(load)?.startMs), unit: "ms" },
        { label: "GET /v1/sessions/{id} read, p50", value: p50Of(withReplies, (load) => read(load)?.responseEndMs), unit: "ms" },
        { label: "its body (median)", value: kib(medianOf(withReplies, (load) => read(load)?.decodedBytes ?? Number.NaN)), unit: "KiB" },
        { label: "its body on the wire (median)", value: kib(medianOf(withReplies, (load) => read(load)?.encodedBytes ?? Number.NaN)), unit: "KiB" },
        { label: "newest reply's text in the DOM, p50", value: p50Of(withReplies, (load) => load.textInDomMs), unit: "ms" },
        {
          label: "rendering: session read -> text in the DOM, p50",
          value: p50Of(withReplies, (load) => (read(load) && load.textInDomMs !== null ? load.textInDomMs - read(load)!.responseEndMs : null)),
          unit: "ms",
        },
        {
          label: "text in the DOM -> its frame presented, p50",
          value: p50Of(withReplies, (load) => (load.textPaintMs !== null && load.textInDomMs !== null ? load.textPaintMs - load.textInDomMs : null)),
          unit: "ms",
        },
        { label: "loads where that frame lasted over 50 ms", value: withReplies.filter((load) => drawingFrame(load)).length, unit: "runs" },
        { label: "that frame, start to rendered (median)", value: frameMedian((frame) => frame.durationMs), unit: "ms" },
        {
          label: "its scripts, in tasks and in the frame's scroll and resize callbacks (median)",
          value: frameMedian((frame) => sum(frame.scripts.map((script) => script.durationMs))),
          unit: "ms",
        },
        {
          label: "of them style and layout they forced (median)",
          value: frameMedian((frame) => sum(frame.scripts.map((script) => script.forcedStyleAndLayoutMs))),
          unit: "ms",
        },
        {
          label: "its style, layout and paint after the scripts (median)",
          value: frameMedian((frame) => frame.startMs + frame.durationMs - frame.styleAndLayoutStartMs),
          unit: "ms",
        },
        ...(cards
          ? [
              {
                label: "text in the DOM -> its tool cards in the DOM, p50",
                value: p50Of(withReplies, (load) => (load.inDomMs !== null && load.textInDomMs !== null ? load.inDomMs - load.textInDomMs : null)),
                unit: "ms" as const,
              },
            ]
          : []),
        { label: "requests ended by then (median)", value: medianOf(withReplies, (load) => load.requests.length), unit: "items" },
        { label: "of them to /v1 (median)", value: medianOf(withReplies, apiRequests), unit: "items" },
        { label: "bytes transferred by then (median)", value: medianOf(withReplies, transferred), unit: "KiB" },
        { label: "JS heap after load (median)", value: medianOf(withReplies, (load) => load.heapBytes) / 2 ** 20, unit: "MiB" },
        { label: "no turns: GET /v1/sessions/{id} read, p50", value: p50Of(without, (load) => readEmpty(load)?.responseEndMs), unit: "ms" },
        { label: "no turns: requests ended by the paint (median)", value: medianOf(without, (load) => load.requests.length), unit: "items" },
        { label: "no turns: bytes transferred by the paint (median)", value: medianOf(without, transferred), unit: "KiB" },
        { label: "no turns: JS heap after load (median)", value: medianOf(without, (load) => load.heapBytes) / 2 ** 20, unit: "MiB" },
        { label: `seeding: ${REPLIES} turns through the API`, value: Math.round(seedSeconds * 10) / 10, unit: "s" },
        { label: "seeding rate", value: Math.round((REPLIES / seedSeconds) * 10) / 10, unit: "turns/s" },
      ],
      details: {
        replies: REPLIES,
        toolCallsPerReply: TOOL_CALLS_PER_REPLY,
        textDeltasPerReply: deltas,
        replyBytes: REPLY_TEXT.length,
        loads: LOADS,
        viewport: PHONE,
        seedSeconds,
        toolCards: support,
        withReplies,
        withoutTurns: without,
      },
    };
  } finally {
    await browser?.close();
    await atrium?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

import { apiCaller, seedEchoSessions } from "../lib/api.ts";
import { OFFLINE_CONFIG, startAtrium, type RunningAtrium } from "../lib/atrium.ts";
import { launchBenchBrowser, PHONE, type BenchBrowser } from "../lib/browser.ts";
import { pinning } from "../lib/processes.ts";
import type { MeasurementResult } from "../lib/report.ts";
import { median, summarize } from "../lib/stats.ts";
import { EMPTY_LIST_TEXT, installListPaintProbe, listPaintSettled, readListLoad, type ListLoad } from "./console-list-probe.ts";

const SESSIONS = 5_000;
/** The console reads this many first (src/console/ui/sessions/sessions-page.tsx), the rest as the user scrolls. */
const FIRST_PAGE = 50;
const PROJECTS = 20;
/** Unmeasured loads of each list first: the server's and the browser's first runs are slower. */
const WARMUP_LOADS = 2;
const LOADS = 10;
/** Issues 19 and 30: the list of 5,000 sessions is on a phone's screen within 300 ms. */
const TARGET_FIRST_PAINT_MS = 300;
const LOAD_TIMEOUT_MS = 30_000;
/** How often Playwright asks the page whether the probe is done: rarely, so the asking costs the page nothing. */
const SETTLED_POLL_MS = 50;

/** How long the page is left alone after its first page, to see whether it reads more unasked. */
const IDLE_AFTER_MS = 1_000;

interface VisitedList extends ListLoad {
  /** `GET /v1/sessions` requests made before the user scrolled (issue 30: one). */
  listRequestsBeforeScroll: number;
  /** From scrolling to the end of the first page to the next page's rows in the DOM; null with one page. */
  nextPageAfterScrollMs: number | null;
}

/**
 * One first visit: a fresh context (no cache), `/#/sessions` opened, the probe's notes once it settled;
 * then a second of nothing, and a scroll to the end of the list.
 */
async function loadList(browser: BenchBrowser, atrium: RunningAtrium, expectedRows: number): Promise<VisitedList> {
  const context = await browser.signedInContext(atrium.token, PHONE);
  try {
    await context.addInitScript(installListPaintProbe, { expectedRows, emptyListText: EMPTY_LIST_TEXT });
    const page = await context.newPage();
    await page.goto(`${atrium.server.url}/#/sessions`);
    await page.waitForFunction(listPaintSettled, expectedRows, { timeout: LOAD_TIMEOUT_MS, polling: SETTLED_POLL_MS });
    const load = await page.evaluate(readListLoad, EMPTY_LIST_TEXT);
    if (load.firstTopPx === null || load.firstTopPx >= load.viewportHeightPx) {
      throw new Error(`the first row is at ${load.firstTopPx} px, below the ${load.viewportHeightPx} px screen`);
    }
    await page.waitForTimeout(IDLE_AFTER_MS);
    const listRequestsBeforeScroll = (await page.evaluate(readListLoad, EMPTY_LIST_TEXT)).sessionPagesAnsweredMs.length;
    let nextPageAfterScrollMs: number | null = null;
    if (expectedRows === FIRST_PAGE) {
      const scrolled = performance.now();
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
      await page.locator(".session-row").nth(FIRST_PAGE).waitFor({ state: "attached", timeout: LOAD_TIMEOUT_MS });
      nextPageAfterScrollMs = performance.now() - scrolled;
    }
    return { ...load, listRequestsBeforeScroll, nextPageAfterScrollMs };
  } finally {
    await context.close();
  }
}

const figureOf = (loads: VisitedList[], pick: (load: VisitedList) => number | null) => summarize(loads.map((load) => pick(load) ?? Number.NaN));

/**
 * The console's session list at `#/sessions` on a 390×844 phone viewport, first visit each time: from
 * the start of the navigation to the first frame showing session rows, with 1,000 sessions in 20
 * projects and, as the baseline, with the same projects and no sessions (to the frame showing "No
 * sessions yet."). Two servers, loads alternating between them.
 */
export async function measureConsoleList(binary: string): Promise<MeasurementResult> {
  const full = await startAtrium(binary, {}, OFFLINE_CONFIG);
  let empty: RunningAtrium | undefined;
  let browser: BenchBrowser | undefined;
  try {
    empty = await startAtrium(binary, {}, OFFLINE_CONFIG);
    await seedEchoSessions(apiCaller(full.server.url, full.token), SESSIONS, PROJECTS);
    await seedEchoSessions(apiCaller(empty.server.url, empty.token), 0, PROJECTS);
    browser = await launchBenchBrowser();
    const withSessions: VisitedList[] = [];
    const without: VisitedList[] = [];
    for (let round = 0; round < WARMUP_LOADS + LOADS; round++) {
      const loaded = await loadList(browser, full, FIRST_PAGE);
      const baseline = await loadList(browser, empty, 0);
      if (round < WARMUP_LOADS) continue;
      withSessions.push(loaded);
      without.push(baseline);
    }
    const firstPaint = figureOf(withSessions, (load) => load.firstPaintMs);
    const emptyPaint = figureOf(without, (load) => load.firstPaintMs);
    const allPaint = figureOf(withSessions, (load) => load.allPaintMs);
    const p50Of = (loads: VisitedList[], pick: (load: VisitedList) => number | null) => figureOf(loads, pick).p50;
    return {
      method:
        `${SESSIONS.toLocaleString("en-US")} echo sessions in ${PROJECTS} projects made through the API; Debian's headless Chromium ` +
        `opens ${"`/#/sessions`"} at ${PHONE.width}×${PHONE.height} in a fresh context each time (no cache; the token put in localStorage ` +
        `before the page's script runs), ${LOADS} loads after ${WARMUP_LOADS} unmeasured ones, alternating with the baseline: a second ` +
        `server with the same projects and no sessions, measured to its "No sessions yet."; a MutationObserver installed before the ` +
        `page's script adds an Element Timing marker in the task that puts the first rows (then the first page's ${FIRST_PAGE}) in the ` +
        `DOM, and its renderTime, when that frame was presented, is the figure, in ms from navigation start; then the page is left ` +
        `alone ${IDLE_AFTER_MS / 1000} s (list requests counted from the Resource Timing entries) and scrolled to its end, timed to the ` +
        `next page's first row in the DOM; the server on CPU 0, Chromium (all its processes) on CPU 1; ${pinning}.`,
      figures: [
        { label: "first paint with session rows, p50", value: firstPaint.p50, unit: "ms", target: { comparison: "<", value: TARGET_FIRST_PAINT_MS } },
        { label: "first paint with session rows, p95", value: firstPaint.p95, unit: "ms" },
        { label: "no sessions: first paint of the empty list, p50 (baseline)", value: emptyPaint.p50, unit: "ms" },
        { label: "no sessions: p95", value: emptyPaint.p95, unit: "ms" },
        { label: `ratio p50, ${SESSIONS.toLocaleString("en-US")} sessions / none`, value: firstPaint.p50 / emptyPaint.p50, unit: "ratio" },
        { label: "ratio p95", value: firstPaint.p95 / emptyPaint.p95, unit: "ratio" },
        { label: "rows in that first frame (median)", value: median(withSessions.map((load) => load.rowsAtFirst)), unit: "sessions" },
        { label: `the first page's ${FIRST_PAGE} rows painted, p50`, value: allPaint.p50, unit: "ms" },
        { label: "the page's first contentful paint (its top bar), p50", value: p50Of(withSessions, (load) => load.firstContentfulPaintMs), unit: "ms" },
        { label: `first page of ${FIRST_PAGE} sessions read, p50`, value: p50Of(withSessions, (load) => load.sessionPagesAnsweredMs[0] ?? null), unit: "ms" },
        { label: "its rows in the DOM, p50", value: p50Of(withSessions, (load) => load.firstInDomMs), unit: "ms" },
        { label: "no sessions: the empty page read, p50", value: p50Of(without, (load) => load.sessionPagesAnsweredMs[0] ?? null), unit: "ms" },
        { label: "no sessions: the empty line in the DOM, p50", value: p50Of(without, (load) => load.firstInDomMs), unit: "ms" },
        {
          label: `list requests in the ${IDLE_AFTER_MS / 1000} s before a scroll (most of all loads)`,
          value: Math.max(...withSessions.map((load) => load.listRequestsBeforeScroll)),
          unit: "requests",
          target: { comparison: "<", value: 2 },
        },
        { label: "scrolled to the end: the next page's rows in the DOM, p50", value: p50Of(withSessions, (load) => load.nextPageAfterScrollMs), unit: "ms" },
      ],
      details: { sessions: SESSIONS, projects: PROJECTS, loads: LOADS, viewport: PHONE, withSessions, withoutSessions: without },
    };
  } finally {
    await browser?.close();
    await empty?.stop();
    await full.stop();
  }
}

import { seedEchoSessions } from "../lib/atrium.ts";
import { PHONE } from "../lib/browser.ts";
import { visit, type ConsoleWorld } from "../lib/console.ts";
import { measurement } from "../lib/measurement.ts";
import { type PaintMark, readPage } from "../lib/paint-probe.ts";
import { below, paintAgainstBaseline } from "../lib/report.ts";
import { medianOf } from "../lib/stats.ts";

const SESSIONS = 5_000;
/** The console reads this many first (src/console/ui/sessions/sessions-page.tsx), the rest as the user scrolls. */
const FIRST_PAGE = 50;
/** How long the page is left alone after its first page, to see whether it reads more unasked. */
const IDLE_AFTER_MS = 1_000;

const ROW_MARKS: PaintMark[] = [
  { name: "first", selector: ".session-row" },
  { name: "all", selector: ".session-row", count: FIRST_PAGE },
];
const EMPTY_MARKS: PaintMark[] = [{ name: "first", selector: "p.quiet", text: "No sessions yet." }];

/**
 * One first visit: a fresh context (no cache), `/#/sessions` opened, the probe's notes once it
 * settled; then a second of nothing, and (with sessions) a scroll to the end of the list.
 */
const loadList = (world: ConsoleWorld, withRows: boolean) =>
  visit(world, "sessions", { marks: withRows ? ROW_MARKS : EMPTY_MARKS }, async (page) => {
    const box = await page
      .locator(withRows ? ".session-row" : "p.quiet")
      .first()
      .boundingBox();
    if (!box || box.y >= PHONE.height) throw new Error(`the list's first line is at ${box?.y} px, below the ${PHONE.height} px screen`);
    await page.waitForTimeout(IDLE_AFTER_MS);
    const reading = await page.evaluate(readPage);
    const pages = reading.requests.filter((request) => request.path.startsWith("/v1/sessions?"));
    let nextPageAfterScrollMs: number | null = null;
    if (withRows) {
      const scrolled = performance.now();
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
      await page.locator(".session-row").nth(FIRST_PAGE).waitFor({ state: "attached", timeout: 30_000 });
      nextPageAfterScrollMs = performance.now() - scrolled;
    }
    const { first, all } = reading.marks;
    // Times in ms from navigation start.
    return {
      firstPaintMs: first!.paintMs,
      allPaintMs: all?.paintMs ?? null,
      firstInDomMs: first!.inDomMs,
      rowsAtFirst: first!.matches,
      firstContentfulPaintMs: reading.firstContentfulPaintMs,
      pageReadMs: pages[0]?.responseEndMs ?? null,
      /** `GET /v1/sessions` requests made before the user scrolled (issue 30: one). */
      listRequestsBeforeScroll: pages.length,
      nextPageAfterScrollMs,
    };
  });

export const consoleList = measurement({
  key: "console-list",
  title: "Console: the session list with 5,000 sessions, first paint on a phone",
  seed: {
    what:
      `a server with ${SESSIONS.toLocaleString("en-US")} echo sessions in 20 projects and one with the same projects and none, both made ` +
      "through the API and offline by their config; Debian's headless Chromium, all its processes on the load CPU.",
    async run(bench) {
      const [atrium, empty] = [await bench.atrium({ config: {} }), await bench.atrium({ config: {} })];
      await seedEchoSessions(atrium.call, SESSIONS, 20);
      await seedEchoSessions(empty.call, 0, 20);
      return { atrium, browser: await bench.browser(), empty };
    },
  },
  action: {
    what:
      `\`/#/sessions\` opened at ${PHONE.width}×${PHONE.height} in a fresh context (no cache; the token in localStorage before the ` +
      "page's script runs): the paint probe's marker in the task that puts the first rows (then the first page's 50) in the DOM; " +
      "the figure is when that frame was presented, in ms from navigation start. Then the page is left alone 1 s (list requests " +
      "counted from Resource Timing) and scrolled to its end, timed to the next page's first row in the DOM.",
    run: (world) => loadList(world, true),
  },
  baseline: {
    what: 'the same visit to the server with no sessions, to the frame presenting "No sessions yet.".',
    run: ({ browser, empty }) => loadList({ atrium: empty, browser }, false),
  },
  rounds: { warmup: 2, measured: 10 },
  figures: ({ action, baseline }) => [
    ...paintAgainstBaseline(
      {
        action: "first paint with session rows",
        baseline: "no sessions: first paint of the empty list",
        ratio: `${SESSIONS.toLocaleString("en-US")} sessions / none`,
      },
      action.map((l) => l.firstPaintMs),
      baseline.map((l) => l.firstPaintMs),
      below(300),
    ),
    { label: "rows in that first frame", value: medianOf(action, (l) => l.rowsAtFirst), unit: "count" },
    { label: `the first page's ${FIRST_PAGE} rows painted, p50`, value: medianOf(action, (l) => l.allPaintMs), unit: "ms" },
    { label: "the page's first contentful paint (its top bar), p50", value: medianOf(action, (l) => l.firstContentfulPaintMs), unit: "ms" },
    { label: `first page of ${FIRST_PAGE} sessions read, p50`, value: medianOf(action, (l) => l.pageReadMs), unit: "ms" },
    { label: "its rows in the DOM, p50", value: medianOf(action, (l) => l.firstInDomMs), unit: "ms" },
    { label: "no sessions: the empty page read, p50", value: medianOf(baseline, (l) => l.pageReadMs), unit: "ms" },
    { label: "no sessions: the empty line in the DOM, p50", value: medianOf(baseline, (l) => l.firstInDomMs), unit: "ms" },
    {
      label: `list requests in the ${IDLE_AFTER_MS / 1000} s before a scroll (worst load)`,
      value: Math.max(...action.map((l) => l.listRequestsBeforeScroll)),
      unit: "count",
      target: below(2),
    },
    { label: "scrolled to the end: the next page's rows in the DOM, p50", value: medianOf(action, (l) => l.nextPageAfterScrollMs), unit: "ms" },
  ],
});

/** The page side of the session list measurement: runs in the console's page, before its own script. */
import type { PageGlobals } from "../lib/page-globals.ts";

/** What the console shows when there are no sessions (src/console/ui/sessions/sessions-page.tsx). */
export const EMPTY_LIST_TEXT = "No sessions yet.";

/** The probe's argument: it runs in the page, where this module's constants are not. */
export interface ListProbeOptions {
  expectedRows: number;
  emptyListText: string;
}

/** Times are in ms from the start of the navigation (the page's time origin); null until seen. */
export interface ListPaint {
  /** The first session rows, or with no sessions the "No sessions yet." line, entered the DOM. */
  firstInDomMs: number | null;
  /** The frame that first held them was presented (Element Timing's renderTime of a marker added with them). */
  firstPaintMs: number | null;
  rowsAtFirst: number;
  /** All the expected rows were in the DOM; the frame holding them was presented. */
  allInDomMs: number | null;
  allPaintMs: number | null;
}

type ListPaintWindow = PageGlobals & { listPaint?: ListPaint };

/**
 * Watches the DOM from the first byte. When the list's first rows (or its empty line) appear, and again
 * when all `expectedRows` are there, it adds a one-character marker for Element Timing in the same
 * task, so that the browser reports when the frame holding them was presented. A marker, because
 * Element Timing reports an element's first paint only: the empty line reuses the "Loading…"
 * paragraph, painted before, and the last rows are below the screen, never painted.
 */
export function installListPaintProbe({ expectedRows, emptyListText }: ListProbeOptions): void {
  const web = globalThis as unknown as ListPaintWindow;
  const paint: ListPaint = { firstInDomMs: null, firstPaintMs: null, rowsAtFirst: 0, allInDomMs: null, allPaintMs: null };
  web.listPaint = paint;
  new web.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier === "list-shown") paint.firstPaintMs = entry.renderTime ?? null;
      if (entry.identifier === "list-complete") paint.allPaintMs = entry.renderTime ?? null;
    }
  }).observe({ type: "element", buffered: true });
  const addMarker = (identifier: string) => {
    const marker = web.document.createElement("span");
    marker.textContent = "·";
    marker.setAttribute("elementtiming", identifier);
    // Through the CSSOM: the console's CSP refuses style attributes. Fixed makes the marker a block of
    // its own, which Element Timing needs to attribute the text to it.
    Object.assign(marker.style, { position: "fixed", right: "0", bottom: "0", fontSize: "8px", pointerEvents: "none" });
    web.document.body.append(marker);
  };
  const rows = web.document.getElementsByClassName("session-row");
  const listShown = () => rows.length > 0 || Array.from(web.document.querySelectorAll("p.quiet")).some((line) => line.textContent === emptyListText);
  new web.MutationObserver(() => {
    if (paint.firstInDomMs === null && listShown()) {
      paint.firstInDomMs = web.performance.now();
      paint.rowsAtFirst = rows.length;
      addMarker("list-shown");
    }
    if (paint.allInDomMs === null && expectedRows > 0 && rows.length >= expectedRows) {
      paint.allInDomMs = web.performance.now();
      addMarker("list-complete");
    }
    // characterData too: Preact may show the empty line by changing the text of the "Loading…" paragraph.
  }).observe(web.document, { childList: true, subtree: true, characterData: true });
}

/** Whether the probe has seen all it waits for. */
export function listPaintSettled(expectedRows: number): boolean {
  const { listPaint } = globalThis as unknown as ListPaintWindow;
  return !!listPaint && listPaint.firstPaintMs !== null && (expectedRows === 0 || listPaint.allPaintMs !== null);
}

export interface ListLoad extends ListPaint {
  /** The page's own first paint with content (its top bar), for context. */
  firstContentfulPaintMs: number | null;
  /** When each GET /v1/sessions page had been read. */
  sessionPagesAnsweredMs: number[];
  /** Where the first row (or the empty line) is, against the screen's height: it was on screen. */
  firstTopPx: number | null;
  viewportHeightPx: number;
}

/** The probe's notes, with the page's own milestones around them. */
export function readListLoad(emptyListText: string): ListLoad {
  const web = globalThis as unknown as ListPaintWindow;
  const contentful = web.performance.getEntriesByName("first-contentful-paint")[0];
  const sessionPages = web.performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/v1/sessions?"));
  const first =
    web.document.querySelector(".session-row") ??
    Array.from(web.document.querySelectorAll("p.quiet")).find((line) => line.textContent === emptyListText) ??
    null;
  return {
    ...web.listPaint!,
    firstContentfulPaintMs: contentful?.startTime ?? null,
    sessionPagesAnsweredMs: sessionPages.map((entry) => entry.responseEnd ?? Number.NaN),
    firstTopPx: first?.getBoundingClientRect().top ?? null,
    viewportHeightPx: web.innerHeight,
  };
}

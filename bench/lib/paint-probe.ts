/**
 * The one paint probe of the console and peer measurements: installed before a page's own script, it
 * watches the DOM, and in the task that first satisfies a mark it adds a one-character marker for
 * Element Timing, whose renderTime is when the frame holding that content was presented. A marker,
 * because Element Timing reports an element's first paint only: an empty list's line reuses a
 * "Loading…" paragraph painted before, and the last rows of a long list are below the screen. The
 * functions here run in the page (Playwright sends their source), so they use no import at run time.
 */
import type { Page } from "playwright-core";

/** Met once the last element matching `selector` exists (and `count` of them), holds `text` and `holding` of its own. */
export interface PaintMark {
  name: string;
  selector: string;
  count?: number;
  text?: string;
  holding?: { selector: string; count: number };
}

/** Times are ms from the start of the navigation (the page's time origin); null until seen. */
export interface MarkSeen {
  inDomMs: number | null;
  paintMs: number | null;
  /** Elements matching the selector when the mark was met. */
  matches: number;
}

/** Element Timing's entry, which lib.dom does not declare yet: `renderTime` is when the frame that first drew the element was presented. */
type ElementTiming = PerformanceEntry & { identifier: string; renderTime: number };
declare global {
  interface Window {
    paintProbe?: Record<string, MarkSeen>;
  }
}

export function installPaintProbe(marks: PaintMark[]): void {
  const seen: Record<string, MarkSeen> = Object.fromEntries(marks.map((mark) => [mark.name, { inDomMs: null, paintMs: null, matches: 0 }]));
  window.paintProbe = seen;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as ElementTiming[]) if (seen[entry.identifier]) seen[entry.identifier]!.paintMs = entry.renderTime ?? null;
  }).observe({ type: "element", buffered: true });
  const met = (mark: PaintMark, all: NodeListOf<Element>): boolean => {
    const last = all[all.length - 1];
    if (!last || all.length < (mark.count ?? 1)) return false;
    if (mark.text !== undefined && !last.textContent?.includes(mark.text)) return false;
    return !mark.holding || last.querySelectorAll(mark.holding.selector).length >= mark.holding.count;
  };
  const observer = new MutationObserver(() => {
    if (document.body === null) return;
    for (const mark of marks) {
      const seenMark = seen[mark.name]!;
      const all = document.querySelectorAll(mark.selector);
      if (seenMark.inDomMs !== null || !met(mark, all)) continue;
      seenMark.inDomMs = performance.now();
      seenMark.matches = all.length;
      const marker = document.createElement("span");
      marker.textContent = "·";
      marker.setAttribute("elementtiming", mark.name);
      // Through the CSSOM, which a CSP refusing style attributes allows; fixed makes the marker a block
      // of its own, which Element Timing needs to attribute the text to it.
      Object.assign(marker.style, { position: "fixed", right: "0", bottom: "0", fontSize: "8px", pointerEvents: "none", zIndex: "2147483647" });
      document.body.append(marker);
    }
    if (Object.values(seen).every((mark) => mark.inDomMs !== null)) observer.disconnect();
  });
  // characterData too: text may be drawn into nodes already there.
  observer.observe(document, { childList: true, subtree: true, characterData: true });
}

/** Whether the frames holding every mark in `names` were presented. */
export function painted(names: string[]): boolean {
  const { paintProbe } = window;
  return !!paintProbe && names.every((name) => paintProbe[name]?.paintMs != null);
}

/**
 * The marks seen, the page's own first contentful paint (its top bar, for context), and the document
 * and every request that has ended, from Resource Timing: path and query, and bytes on the wire,
 * headers included (0 where the browser does not say).
 */
export function readPage() {
  const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
  return {
    marks: window.paintProbe ?? {},
    firstContentfulPaintMs: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
    requests: [...(performance.getEntriesByType("navigation") as PerformanceNavigationTiming[]), ...entries].map((entry) => ({
      path: new URL(entry.name).pathname + new URL(entry.name).search,
      responseEndMs: entry.responseEnd,
      transferBytes: entry.transferSize,
    })),
  };
}

/** Waits (up to 30 s) until the frames holding the marks `names` were presented. */
export const awaitPaint = (page: Page, names: string[]) => page.waitForFunction(painted, names, { timeout: 30_000, polling: 50 });

/** A console's first visit on a phone, the same for all three servers: bytes, first rows, list requests. */
import type { Request } from "playwright-core";
import type { BenchBrowser, Viewport } from "../browser.ts";
import type { PageGlobals } from "../page-globals.ts";
import type { BenchServer } from "./servers.ts";

/** The page is done once no request started or ended for this long (the event streams stay open). */
const IDLE_MS = 1_000;
const VISIT_TIMEOUT_MS = 30_000;
const SETTLED_POLL_MS = 50;

export interface ConsoleVisit {
  /** Sum of every response's body as transferred (encoded), the service worker's fetches included. */
  encodedBytes: number;
  responses: number;
  /** ms from navigation start to the frame that first showed list rows; null when none appeared. */
  firstRowsPaintMs: number | null;
  firstRowsInDomMs: number | null;
  listRequests: number;
  /** When the last list response had been read, ms from navigation start. */
  lastListResponseMs: number | null;
}

interface RowPaint {
  inDomMs: number | null;
  paintMs: number | null;
}

/** What the page-side functions use of the window; they run in the page, where imports are not. */
type ProbeWindow = PageGlobals & { rowPaint?: RowPaint };

/**
 * Runs before the page's script: when the first element matching `selector` enters the DOM it adds,
 * in the same task, a marker for Element Timing, whose renderTime is when the frame holding the rows
 * was presented (the rows themselves may be painted before by a previous element, or be hidden).
 */
function installRowProbe(selector: string): void {
  const web = globalThis as unknown as ProbeWindow;
  const paint: RowPaint = { inDomMs: null, paintMs: null };
  web.rowPaint = paint;
  new web.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.identifier === "peer-rows") paint.paintMs = entry.renderTime ?? null;
  }).observe({ type: "element", buffered: true });
  const observer = new web.MutationObserver(() => {
    if (web.document.querySelector(selector) === null || web.document.body === null) return;
    observer.disconnect();
    paint.inDomMs = web.performance.now();
    const marker = web.document.createElement("span");
    marker.textContent = "·";
    marker.setAttribute("elementtiming", "peer-rows");
    // Through the CSSOM, which a CSP refusing style attributes allows.
    Object.assign(marker.style, { position: "fixed", right: "0", bottom: "0", fontSize: "8px", pointerEvents: "none", zIndex: "2147483647" });
    web.document.body.append(marker);
  });
  observer.observe(web.document, { childList: true, subtree: true });
}

function rowsPainted(): boolean {
  return (globalThis as unknown as ProbeWindow).rowPaint?.paintMs != null;
}

/** The probe's notes and, from resource timing, when each list request's response had been read. */
function readPage(listPathSource: string): { paint: RowPaint; listResponseEnds: number[] } {
  const web = globalThis as unknown as ProbeWindow;
  const listPath = new RegExp(listPathSource);
  const ends = web.performance
    .getEntriesByType("resource")
    .filter((entry) => listPath.test(new URL(entry.name).pathname))
    .map((entry) => entry.responseEnd ?? Number.NaN);
  return { paint: web.rowPaint ?? { inDomMs: null, paintMs: null }, listResponseEnds: ends };
}

/** One first visit in a fresh context: navigation, list rows painted, then until the network is idle. */
export async function visitConsole(browser: BenchBrowser, server: BenchServer, base: string, viewport: Viewport): Promise<ConsoleVisit> {
  const target = server.console;
  const ctx = await target.newContext(browser, base, viewport);
  try {
    await ctx.addInitScript(installRowProbe, target.rowSelector);
    let lastActivity = performance.now();
    let listRequests = 0;
    const sizes: Promise<number>[] = [];
    const touch = () => {
      lastActivity = performance.now();
    };
    ctx.on("request", (request: Request) => {
      touch();
      if (target.listPath.test(new URL(request.url()).pathname)) listRequests++;
    });
    ctx.on("requestfailed", touch);
    ctx.on("requestfinished", (request: Request) => {
      touch();
      sizes.push(
        request.sizes().then(
          (size) => size.responseBodySize,
          () => 0,
        ),
      );
    });
    const page = await ctx.newPage();
    await page.goto(base + target.path, { waitUntil: "commit" });
    let painted = true;
    try {
      await page.waitForFunction(rowsPainted, undefined, { timeout: VISIT_TIMEOUT_MS, polling: SETTLED_POLL_MS });
    } catch {
      painted = false;
    }
    const deadline = performance.now() + VISIT_TIMEOUT_MS;
    while (performance.now() - lastActivity < IDLE_MS && performance.now() < deadline) await Bun.sleep(100);
    const { paint, listResponseEnds } = await page.evaluate(readPage, target.listPath.source);
    const bodies = await Promise.all(sizes);
    const ends = listResponseEnds.filter((end) => Number.isFinite(end));
    return {
      encodedBytes: bodies.reduce((sum, size) => sum + size, 0),
      responses: bodies.length,
      firstRowsPaintMs: painted ? paint.paintMs : null,
      firstRowsInDomMs: paint.inDomMs,
      listRequests,
      lastListResponseMs: ends.length > 0 ? Math.max(...ends) : null,
    };
  } finally {
    await ctx.close();
  }
}

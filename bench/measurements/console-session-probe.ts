/** The page side of the session page measurement: runs in the console's page, before its own script. */
import type { PageElement, PageGlobals, PageTimingEntry } from "../lib/page-globals.ts";

/** The probe's argument: it runs in the page, where this module's constants are not. */
export interface SessionProbeOptions {
  /** The words the newest reply ends with; null for a session with no turns, drawn once its page is. */
  replyEndText: string | null;
  /** How many `.tool-card` elements the newest reply must hold: 0 where the console draws none. */
  toolCards: number;
}

/** Times are in ms from the start of the navigation (the page's time origin); null until seen. */
export interface SessionPaint {
  /** The newest reply's text was in the DOM (for a session with no turns: the session's page). */
  textInDomMs: number | null;
  /** The frame that first held it was presented (Element Timing's renderTime of a marker added with it). */
  textPaintMs: number | null;
  /** Where the newest reply's top was in that frame, in px from the screen's top (on screen: below 0 and the screen's height). */
  newestTopPx: number | null;
  /** All the probe waits for was in the DOM: the text and the reply's tool cards. */
  inDomMs: number | null;
  paintMs: number | null;
  /** Replies, and tool cards in the whole page, when the text was in the DOM. */
  replies: number;
  toolCardsInPage: number;
  /** The page's frames over 50 ms (Long Animation Frames), to see what the one that drew the reply did. */
  longFrames: LongFrame[];
}

/** A frame over 50 ms, as the Long Animation Frames API reports it: its scripts, then its rendering. */
export interface LongFrame {
  startMs: number;
  durationMs: number;
  /** When its rendering (animation callbacks, then style and layout, then paint) began. */
  renderStartMs: number;
  styleAndLayoutStartMs: number;
  scripts: { invoker: string; source: string; startMs: number; durationMs: number; forcedStyleAndLayoutMs: number }[];
}

interface LongFrameEntry {
  startTime: number;
  duration: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: { invoker: string; sourceURL: string; startTime: number; duration: number; forcedStyleAndLayoutDuration: number }[];
}

interface ProbeElement extends PageElement {
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}

/** The page's globals, with the element lookups this probe makes. */
type SessionProbeWindow = Omit<PageGlobals, "document" | "MutationObserver"> & {
  sessionPaint?: SessionPaint;
  MutationObserver: new (
    callback: () => void,
  ) => { observe(target: unknown, options: { childList?: boolean; subtree?: boolean; characterData?: boolean }): void; disconnect(): void };
  document: Omit<PageGlobals["document"], "querySelectorAll" | "getElementsByClassName"> & {
    querySelectorAll(selector: string): ArrayLike<ProbeElement>;
    getElementsByClassName(names: string): ArrayLike<ProbeElement>;
  };
};

/**
 * Watches the DOM from the first byte. When the session's newest reply shows its last words, and again
 * when it holds its tool cards too (for a session with no turns, once: when its page is there), it adds
 * a one-character marker for Element Timing in the same task, so that the browser reports when the
 * frame holding them was presented (a marker, because Element Timing reports an element's first paint
 * only, and the reply may be drawn below the screen).
 */
export function installSessionPaintProbe({ replyEndText, toolCards }: SessionProbeOptions): void {
  const web = globalThis as unknown as SessionProbeWindow;
  const paint: SessionPaint = {
    textInDomMs: null,
    textPaintMs: null,
    newestTopPx: null,
    inDomMs: null,
    paintMs: null,
    replies: 0,
    toolCardsInPage: 0,
    longFrames: [],
  };
  web.sessionPaint = paint;
  new web.PerformanceObserver((list) => {
    for (const entry of list.getEntries() as unknown as LongFrameEntry[]) {
      paint.longFrames.push({
        startMs: entry.startTime,
        durationMs: entry.duration,
        renderStartMs: entry.renderStart,
        styleAndLayoutStartMs: entry.styleAndLayoutStart,
        scripts: entry.scripts.map((script) => ({
          invoker: script.invoker,
          source: script.sourceURL.slice(script.sourceURL.lastIndexOf("/") + 1),
          startMs: script.startTime,
          durationMs: script.duration,
          forcedStyleAndLayoutMs: script.forcedStyleAndLayoutDuration,
        })),
      });
    }
  }).observe({ type: "long-animation-frame", buffered: true });
  new web.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier === "reply-text") paint.textPaintMs = entry.renderTime ?? null;
      if (entry.identifier === "reply-shown") {
        paint.paintMs = entry.renderTime ?? null;
        paint.textPaintMs ??= paint.paintMs;
      }
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
  const replies = web.document.getElementsByClassName("message assistant");
  const pages = web.document.getElementsByClassName("session-page");
  const observer = new web.MutationObserver(() => {
    if (replyEndText === null) {
      if (pages.length === 0) return;
    } else {
      const newest = replies.length > 0 ? replies[replies.length - 1]! : null;
      if (!newest?.textContent?.includes(replyEndText)) return;
      if (paint.textInDomMs === null) {
        paint.textInDomMs = web.performance.now();
        paint.replies = replies.length;
        paint.toolCardsInPage = web.document.getElementsByClassName("tool-card").length;
        addMarker("reply-text");
        // Read in the frame's own animation callback, where the layout is done anyway: the probe forces none.
        web.requestAnimationFrame(() => {
          paint.newestTopPx = newest.getBoundingClientRect().top;
        });
      }
      if (newest.querySelectorAll(".tool-card").length < toolCards) return;
    }
    paint.inDomMs = web.performance.now();
    paint.textInDomMs ??= paint.inDomMs;
    addMarker("reply-shown");
    observer.disconnect();
  });
  // characterData too: a reply's text may be drawn into nodes already there.
  observer.observe(web.document, { childList: true, subtree: true, characterData: true });
}

/** Whether the frame holding the newest reply's text (or the empty session's page) was presented. */
export function textPaintSettled(): boolean {
  const { sessionPaint } = globalThis as unknown as SessionProbeWindow;
  return !!sessionPaint && sessionPaint.textPaintMs !== null;
}

/** Whether the frame holding all the probe waits for (the reply's tool cards too) was presented. */
export function sessionPaintSettled(): boolean {
  const { sessionPaint } = globalThis as unknown as SessionProbeWindow;
  return !!sessionPaint && sessionPaint.paintMs !== null;
}

/** One request of the page, from Resource Timing (sizes are 0 where the browser does not say). */
export interface PageRequest {
  path: string;
  startMs: number;
  responseEndMs: number;
  /** Bytes on the wire, headers included; the body as sent (compressed) and as read. */
  transferBytes: number;
  encodedBytes: number;
  decodedBytes: number;
}

export interface SessionLoad extends SessionPaint {
  /** The page's own first paint with content (its top bar), for context. */
  firstContentfulPaintMs: number | null;
  /** The document and every request that had ended when the reply was whole in the DOM (or its text, if never). */
  requests: PageRequest[];
  viewportHeightPx: number;
}

type TimedEntry = PageTimingEntry & { transferSize?: number; encodedBodySize?: number; decodedBodySize?: number };

/** The probe's notes, with the page's requests up to that moment. */
export function readSessionLoad(): SessionLoad {
  const web = globalThis as unknown as SessionProbeWindow;
  const paint = web.sessionPaint!;
  const contentful = web.performance.getEntriesByName("first-contentful-paint")[0];
  const entries = [...web.performance.getEntriesByType("navigation"), ...web.performance.getEntriesByType("resource")] as TimedEntry[];
  const until = paint.inDomMs ?? paint.textInDomMs ?? Number.POSITIVE_INFINITY;
  const requests = entries
    .filter((entry) => (entry.responseEnd ?? Number.POSITIVE_INFINITY) <= until)
    .map((entry) => ({
      path: new URL(entry.name).pathname + new URL(entry.name).search,
      startMs: entry.startTime,
      responseEndMs: entry.responseEnd ?? Number.NaN,
      transferBytes: entry.transferSize ?? 0,
      encodedBytes: entry.encodedBodySize ?? 0,
      decodedBytes: entry.decodedBodySize ?? 0,
    }));
  return {
    ...paint,
    firstContentfulPaintMs: contentful?.startTime ?? null,
    requests,
    viewportHeightPx: web.innerHeight,
  };
}

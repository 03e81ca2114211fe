/** A console's first visit on a phone, the same for all three servers: bytes, first rows, list requests. */
import type { Request } from "playwright-core";
import type { BenchBrowser, Viewport } from "../browser.ts";
import { untilQuiet } from "../console.ts";
import { awaitPaint, readPage } from "../paint-probe.ts";
import type { BenchServer } from "./servers.ts";

/** The page is done once no request started or ended for this long (the event streams stay open). */
const IDLE_MS = 1_000;
const VISIT_TIMEOUT_MS = 30_000;

/** One first visit in a fresh context: navigation, list rows painted, then until the network is idle. */
export function visitConsole(browser: BenchBrowser, server: BenchServer, base: string, viewport: Viewport) {
  const target = server.console;
  return browser.withPage(viewport, target.storage(base), [{ name: "rows", selector: target.rowSelector }], async (page, context) => {
    let lastActivity = performance.now();
    let listRequests = 0;
    const sizes: Promise<number>[] = [];
    const touch = () => {
      lastActivity = performance.now();
    };
    context.on("request", (request: Request) => {
      touch();
      if (target.listPath.test(new URL(request.url()).pathname)) listRequests++;
    });
    context.on("requestfailed", touch);
    context.on("requestfinished", (request: Request) => {
      touch();
      sizes.push(
        request.sizes().then(
          (size) => size.responseBodySize,
          () => Number.NaN,
        ),
      );
    });
    await page.goto(base + target.path, { waitUntil: "commit" });
    const rowsPainted = await awaitPaint(page, ["rows"]).then(
      () => true,
      () => false,
    );
    await untilQuiet(() => lastActivity, IDLE_MS, VISIT_TIMEOUT_MS);
    const reading = await page.evaluate(readPage);
    const listEnds = reading.requests.filter((request) => target.listPath.test(request.path.split("?")[0]!)).map((request) => request.responseEndMs);
    return {
      /** Every response's body as transferred (encoded), the service worker's fetches included; NaN if one could not be read. */
      encodedBytes: (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0),
      /** From navigation start to the frame that first showed list rows; null when none appeared. */
      firstRowsPaintMs: rowsPainted ? (reading.marks.rows?.paintMs ?? null) : null,
      listRequests,
      /** When the last list response had been read, from navigation start. */
      lastListResponseMs: listEnds.length > 0 ? Math.max(...listEnds) : null,
    };
  });
}

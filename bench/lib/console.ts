/** The console measurements' harness: a server seeded before Chromium starts, and a visit to one of the console's routes. */
import type { BrowserContext, Page } from "playwright-core";
import type { Atrium, AtriumOptions } from "./atrium.ts";
import { PHONE, signedIn, type BenchBrowser, type Viewport } from "./browser.ts";
import type { Bench } from "./measurement.ts";
import { awaitPaint, type PaintMark } from "./paint-probe.ts";

export type ConsoleWorld = { atrium: Atrium; browser: BenchBrowser };

/** A server as `options` say and `seed` run on it, then Chromium (which so idles through no seeding). */
export async function consoleWorld<T>(bench: Bench, options: AtriumOptions, seed: (atrium: Atrium) => Promise<T>): Promise<ConsoleWorld & T> {
  const atrium = await bench.atrium(options);
  const seeded = await seed(atrium);
  return { ...seeded, atrium, browser: await bench.browser() };
}

export const sessionRoute = (sessionId: string) => `sessions/${encodeURIComponent(sessionId)}`;

/**
 * `#/route` opened signed in, on a fresh context (no cache) at `viewport` (a phone's unless said), the
 * paint probe watching `marks`; `use` once the frames holding `painted` (all the marks unless said) were
 * presented. `watch` gets the page before it navigates.
 */
export function visit<T>(
  { atrium, browser }: ConsoleWorld,
  route: string,
  { viewport = PHONE, marks = [], painted, watch }: { viewport?: Viewport; marks?: PaintMark[]; painted?: string[]; watch?(page: Page): void },
  use: (page: Page, context: BrowserContext) => Promise<T>,
): Promise<T> {
  return browser.withPage(viewport, signedIn(atrium.token), marks, async (page, context) => {
    watch?.(page);
    await page.goto(`${atrium.url}/#/${route}`);
    if (marks.length > 0) await awaitPaint(page, painted ?? marks.map((mark) => mark.name));
    return use(page, context);
  });
}

/** Until `lastActivity()` (a performance.now()) is `quietMs` old, polled every 100 ms, for at most `maxMs`. */
export async function untilQuiet(lastActivity: () => number, quietMs: number, maxMs: number): Promise<void> {
  const deadline = performance.now() + maxMs;
  while (performance.now() < deadline && performance.now() - lastActivity() < quietMs) await Bun.sleep(100);
}

import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { QUIET_FLAGS, SYSTEM_CHROMIUM } from "../../test/helpers/browser.ts";
import { watchProcessTree } from "./cpu.ts";
import { installPaintProbe, type PaintMark } from "./paint-probe.ts";
import { LOAD_CPU, childPids, onCpu, tempDir } from "./processes.ts";

export { DESKTOP, PHONE } from "../../test/helpers/console-browser.ts";

export type Viewport = { width: number; height: number };

export interface BenchBrowser {
  /**
   * `use` on a new page of a fresh context (empty cache) that is closed after; the page finds `storage` in localStorage, as
   * a returning visitor's would, and the paint probe watching `marks`, before its own script runs.
   */
  withPage<T>(viewport: Viewport, storage: Record<string, string>, marks: PaintMark[], use: (page: Page, context: BrowserContext) => Promise<T>): Promise<T>;
  /** Such a context (without a paint probe) for a measurement whose page lives across its rounds: the caller closes it. */
  context(viewport: Viewport, storage: Record<string, string>): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Where the console keeps its token (src/console/ui/shared/api.ts): a page with it starts signed in. */
export const signedIn = (token: string) => ({ "atrium.token": token });

/**
 * Debian's headless Chromium, every one of its processes pinned to the load CPU like the other
 * benchmarks' clients (a wrapper script runs it under taskset, whose pinning its children inherit), so
 * that the server and the page never take turns on one core. Idle, it draws 60 frames a second
 * without the background-throttling flags: the page is never hidden or occluded.
 */
export async function launchBenchBrowser(): Promise<BenchBrowser> {
  const dir = tempDir("chromium");
  const wrapper = join(dir, "chromium");
  writeFileSync(wrapper, `#!/bin/sh\nexec ${onCpu(LOAD_CPU, [SYSTEM_CHROMIUM]).join(" ")} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const childrenBefore = new Set(childPids(process.pid));
  const browser = await chromium.launch({ executablePath: wrapper, headless: true, args: QUIET_FLAGS }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const browserPid = childPids(process.pid).find((pid) => !childrenBefore.has(pid));
  // Its zygotes leave their renderers to init, so their CPU never comes back to us when reaped: watched,
  // it counts as the benchmark's rather than as other processes'.
  const tree = browserPid === undefined ? undefined : watchProcessTree(browserPid);
  const storedContext = async (viewport: Viewport, storage: Record<string, string>) => {
    const context = await browser.newContext({ viewport });
    await context.addInitScript((items: Record<string, string>) => {
      const { localStorage } = globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } };
      for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
    }, storage);
    return context;
  };
  return {
    context: storedContext,
    async withPage(viewport, storage, marks, use) {
      const context = await storedContext(viewport, storage);
      try {
        if (marks.length > 0) await context.addInitScript(installPaintProbe, marks);
        return await use(await context.newPage(), context);
      } finally {
        await context.close();
      }
    },
    async close() {
      tree?.sample();
      try {
        await browser.close();
      } finally {
        tree?.settle();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

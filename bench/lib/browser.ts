import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { QUIET_FLAGS, SYSTEM_CHROMIUM } from "../../test/helpers/browser.ts";
import { watchProcessTree } from "./cpu.ts";
import { LOAD_CPU, childPids, onCpu, tempDir } from "./processes.ts";

export { DESKTOP, PHONE } from "../../test/helpers/console-browser.ts";

export interface Viewport {
  width: number;
  height: number;
}

export interface BenchBrowser {
  browser: Browser;
  /** A fresh context (empty cache) whose pages find `storage` in localStorage before their own script runs, as a returning visitor's would. */
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
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: wrapper, headless: true, args: QUIET_FLAGS });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const browserPid = childPids(process.pid).find((pid) => !childrenBefore.has(pid));
  // Its zygotes leave their renderers to init, so their CPU never comes back to us when reaped: watched,
  // it counts as the benchmark's rather than as other processes'.
  const tree = browserPid === undefined ? undefined : watchProcessTree(browserPid);
  return {
    browser,
    async context(viewport, storage) {
      const context = await browser.newContext({ viewport });
      await context.addInitScript((items: Record<string, string>) => {
        const { localStorage } = globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } };
        for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
      }, storage);
      return context;
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

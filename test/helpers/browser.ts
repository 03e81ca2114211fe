import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it): never a browser a test tool downloads. */
export const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/** The machine's network is closed: without these, Chromium's background connections fail many at a time. */
export const QUIET_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface SystemBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** Headless Chromium from the system; Playwright gives it a temporary profile and removes it on close. */
/** `args` are added to Chromium's command line (e.g. `--host-resolver-rules` to reach a loopback server by another name). */
export async function launchSystemChromium(args: string[] = []): Promise<SystemBrowser> {
  if (!existsSync(SYSTEM_CHROMIUM)) throw new Error(`${SYSTEM_CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  const browser = await chromium.launch({ executablePath: SYSTEM_CHROMIUM, headless: true, args: [...QUIET_FLAGS, ...args] });
  return { browser, close: () => browser.close() };
}

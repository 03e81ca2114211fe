import { afterAll, beforeAll, expect, test } from "bun:test";
import { chromium } from "playwright-core";
import { QUIET_FLAGS, SYSTEM_CHROMIUM } from "../helpers/browser.ts";
import { type ConsoleUnderTest, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The console as an app on a phone (issue 28): installable (a manifest with its icons, a service worker),
// and opening from the kept shell when the server cannot be reached, saying so. Its own server: the
// test stops it for good.
let atrium: ConsoleUnderTest;
const profile = makeTempDir("atrium-profile-");

beforeAll(async () => {
  atrium = await startConsole();
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  profile.remove();
});

test("on a phone: installable with no error Chromium names; with the server gone the kept shell opens and says it is offline", async () => {
  // A profile of its own, as a person's browser has: Chromium offers no install in a private window.
  const context = await chromium.launchPersistentContext(profile.path, { executablePath: SYSTEM_CHROMIUM, headless: true, args: QUIET_FLAGS, viewport: PHONE });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(`${atrium.serve.url}/`);
  await page.evaluate((token: string) => localStorage.setItem("atrium.token", token), atrium.adminToken());
  await page.goto(`${atrium.serve.url}/#/harnesses`);
  await page.reload();
  await page.locator('[data-harness="echo"]').getByText("Ready").waitFor();

  const manifest = (await (await fetch(`${atrium.serve.url}/manifest.webmanifest`)).json()) as {
    icons: Array<{ sizes: string; purpose: string }>;
    display: string;
  };
  expect(manifest.display).toBe("standalone");
  expect(manifest.icons.map((icon) => `${icon.sizes} ${icon.purpose}`)).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
  // The worker takes the page over once it has kept the shell.
  await until(
    () => page.evaluate("navigator.serviceWorker.ready.then(() => true)"),
    (ready) => ready === true,
    10_000,
  );
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as { installabilityErrors: Array<{ errorId: string }> };
  expect(installabilityErrors).toEqual([]);

  atrium.serve.child.kill("SIGKILL");
  await atrium.serve.child.exited;
  await page.reload();
  await page.getByRole("status").getByText("Offline: the server cannot be reached").waitFor();
  // The shell itself came from the cache: its navigation is there to use.
  await page.getByRole("button", { name: "Menu" }).waitFor();
  await screenshot(page, "console-offline-phone");
  const unexpected = problems.filter((problem) => !/ERR_CONNECTION_REFUSED|ERR_FAILED|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(problem));
  expect(unexpected).toEqual([]);
  await context.close();
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { compileBinary } from "../../release/compile.ts";
import { runAtrium, startServe, type ServeProcess } from "../helpers/cli-process.ts";
import { launchSystemChromium, type SystemBrowser } from "../helpers/browser.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The console as people meet it: the compiled binary serving it, a real Chromium showing it. A suite
// of its own (`npm run test:browser`, which .ci/run runs after installing Debian's Chromium), so that
// `npm test` needs nothing beyond Node.js and npm. ATRIUM_SCREENSHOTS=1 writes docs/screenshots/ anew.
const build = makeTempDir("atrium-build-");
const home = makeTempDir("atrium-home-");
const binary = join(build.path, "atrium");
const SCREENSHOTS = join(import.meta.dir, "..", "..", "docs", "screenshots");
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
let serve: ServeProcess;
let chromium: SystemBrowser;

const screenshot = (page: Page, name: string) => (process.env.ATRIUM_SCREENSHOTS ? page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) }) : undefined);

beforeAll(async () => {
  await compileBinary({ outfile: binary, version: "0.0.0-console", buildNumber: 0, channel: "alpha" });
  serve = await startServe([binary], home.path);
  chromium = await launchSystemChromium();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  serve?.child.kill("SIGTERM");
  await serve?.child.exited;
  build.remove();
  home.remove();
});

/** A page at a viewport that fails the test on any script error or CSP refusal it reports. */
async function openConsole(viewport: { width: number; height: number }, path = "/"): Promise<{ page: Page; problems: string[] }> {
  const context = await chromium.browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().includes("401")) problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(serve.url + path);
  return { page, problems };
}

const adminToken = () => readFileSync(join(home.path, "token"), "utf8").trim();

describe("the console in a browser", () => {
  test("on a phone: a wrong token is refused, the right one shows the harnesses, a reload keeps it, signing out forgets it", async () => {
    const { page, problems } = await openConsole(PHONE);
    await page.getByLabel("Token").fill("atr_not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("the bearer token is not valid").waitFor();
    await screenshot(page, "console-sign-in-phone");

    await page.getByLabel("Token").fill(adminToken());
    await page.getByRole("button", { name: "Sign in" }).click();
    const echo = page.locator('[data-harness="echo"]');
    await echo.getByText("Ready").waitFor();
    await screenshot(page, "console-harnesses-phone");

    await page.reload();
    await echo.getByText("Ready").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Token").waitFor();
    expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toBeNull();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: the link atrium console prints signs in without a token typed, and leaves no code in the address", async () => {
    const printed = await runAtrium([binary], ["console"], home.path);
    expect(printed.code).toBe(0);
    const link = new URL(printed.stdout.trim());
    const { page, problems } = await openConsole(DESKTOP, `/${link.hash}`);
    await page.locator('[data-harness="echo"]').getByText("Ready").waitFor();
    expect(new URL(page.url()).hash).toBe("");
    expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toMatch(/^atr_/);
    await screenshot(page, "console-harnesses-desktop");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a used link is refused with a sentence, on the sign-in page", async () => {
    const printed = await runAtrium([binary], ["console"], home.path);
    const hash = new URL(printed.stdout.trim()).hash;
    const first = await openConsole(DESKTOP, `/${hash}`);
    await first.page.locator('[data-harness="echo"]').waitFor();
    await first.page.context().close();
    const second = await openConsole(DESKTOP, `/${hash}`);
    await second.page.getByRole("alert").getByText("this console link is wrong, used or expired").waitFor();
    await second.page.context().close();
  });
});

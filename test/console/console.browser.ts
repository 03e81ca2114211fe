import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runAtrium } from "../helpers/cli-process.ts";
import { type ConsoleUnderTest, DESKTOP, goToPage, PHONE, screenshot, signOut, startConsole } from "../helpers/console-browser.ts";

// Signing in to the console. The browser suites are their own (`npm run test:browser`, which .ci/run
// runs after installing Debian's Chromium), so that `npm test` needs nothing beyond Node.js and npm.
// ATRIUM_SCREENSHOTS=1 writes docs/screenshots/ anew.
let atrium: ConsoleUnderTest;

beforeAll(async () => {
  atrium = await startConsole();
}, 120_000);

afterAll(() => atrium?.close());

describe("the console in a browser", () => {
  test("on a phone: a wrong token is refused, the right one shows the harnesses, a reload keeps it, signing out forgets it", async () => {
    const { page, problems } = await atrium.open(PHONE);
    await page.getByLabel("Token").fill("atr_not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("the bearer token is not valid").waitFor();
    await screenshot(page, "console-sign-in-phone");

    await page.getByLabel("Token").fill(atrium.adminToken());
    await page.getByRole("button", { name: "Sign in" }).click();
    await goToPage(page, "Harnesses");
    const echo = page.locator('[data-harness="echo"]');
    await echo.getByText("Ready").waitFor();
    await screenshot(page, "console-harnesses-phone");

    await page.reload();
    await echo.getByText("Ready").waitFor();
    await signOut(page);
    await page.getByLabel("Token").waitFor();
    expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toBeNull();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: the link atrium console prints signs in without a token typed, and leaves no code in the address", async () => {
    const printed = await runAtrium([atrium.binary], ["console"], atrium.home.path);
    expect(printed.code).toBe(0);
    const link = new URL(printed.stdout.trim());
    const { page, problems } = await atrium.open(DESKTOP, `/${link.hash}`);
    await page.getByRole("link", { name: "Sessions", exact: true }).and(page.locator('[aria-current="page"]')).waitFor();
    expect(new URL(page.url()).hash).toBe("");
    expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toMatch(/^atr_/);
    await page.getByRole("link", { name: "Harnesses" }).click();
    await page.locator('[data-harness="echo"]').getByText("Ready").waitFor();
    await screenshot(page, "console-harnesses-desktop");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a used link is refused with a sentence, on the sign-in page", async () => {
    const printed = await runAtrium([atrium.binary], ["console"], atrium.home.path);
    const hash = new URL(printed.stdout.trim()).hash;
    const first = await atrium.open(DESKTOP, `/${hash}`);
    await first.page.getByRole("link", { name: "Harnesses" }).waitFor();
    await first.page.context().close();
    const second = await atrium.open(DESKTOP, `/${hash}`);
    await second.page.getByRole("alert").getByText("this console link is wrong, used or expired").waitFor();
    await second.page.context().close();
  });
});

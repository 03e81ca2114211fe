import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import type { SyncNamespace } from "../../src/schemas/sync.ts";
import jsQR from "jsqr";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";

// The console's settings live in a sync namespace on the server: a change in one browser reaches the
// others at once, and survives a reload.
let atrium: ConsoleUnderTest;

beforeAll(async () => {
  atrium = await startConsole();
}, 120_000);

afterAll(() => atrium?.close());

const background = (page: Page) => page.evaluate<string>("getComputedStyle(document.documentElement).backgroundColor");

describe("console settings", () => {
  test("a theme chosen in one browser is shared through the server: another browser follows it live, and it survives a reload", async () => {
    const desktop = await atrium.openSignedIn(DESKTOP, "/#/settings");
    const phone = await atrium.openSignedIn(PHONE, "/#/sessions");
    await desktop.page.getByLabel("Theme").selectOption("dark");
    await desktop.page.locator('html[data-theme="dark"]').waitFor({ state: "attached" });
    await phone.page.locator('html[data-theme="dark"]').waitFor({ state: "attached" });
    expect(await background(phone.page)).toBe("rgb(22, 22, 21)");
    await screenshot(desktop.page, "console-settings-desktop");

    await desktop.page.getByLabel("Theme").selectOption("light");
    await phone.page.locator('html[data-theme="light"]').waitFor({ state: "attached" });
    expect(await background(phone.page)).toBe("rgb(247, 247, 245)");
    await phone.page.reload();
    await phone.page.locator('html[data-theme="light"]').waitFor({ state: "attached" });

    const stored = await atrium.api<SyncNamespace>("GET", "/v1/sync/console.settings");
    expect(stored.entries.find((entry) => entry.key === "theme")).toMatchObject({ value: "light", deleted: false });
    expect([...desktop.problems, ...phone.problems]).toEqual([]);
    await desktop.page.context().close();
    await phone.page.context().close();
  });

  test("with 'Enter sends' on, Enter sends the prompt and Shift+Enter starts a new line", async () => {
    const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true });
    const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: "Keys" });
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    await page.getByLabel("Enter sends the prompt").check();
    await page.getByLabel("Enter sends the prompt").and(page.locator(":enabled")).waitFor();
    await page.goto(`${atrium.serve.url}/#/sessions/${session.id}`);
    const prompt = page.getByLabel("Prompt", { exact: true });
    await prompt.click();
    await page.keyboard.type("two");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("lines");
    expect(await prompt.inputValue()).toBe("two\nlines");
    await page.keyboard.press("Enter");
    await page.locator(".message.assistant").getByText("Echo: two").waitFor();
    expect(await prompt.inputValue()).toBe("");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop, Open on your phone: a QR code of a fresh one-time link that signs the phone in as a token named after it", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/settings");
    const group = page.getByRole("region", { name: "Open on your phone" });
    await group.getByLabel("Device").fill("Ada's phone");
    await group.getByRole("button", { name: "Show QR code" }).click();
    const qr = group.getByRole("img", { name: "QR code of a sign-in link for Ada's phone" });
    await qr.waitFor();
    const link = await group.locator(".phone-link .project-path").textContent();
    expect(link).toStartWith(`${atrium.serve.url}/#code=`);
    // What the camera reads is that link: the drawn squares, decoded by a QR reader of the test's own.
    expect(readSvgQr(await qr.locator("path").getAttribute("d"), Number((await qr.getAttribute("viewBox"))!.split(" ")[2]))).toBe(link!);
    // This test's server listens on loopback: the page says a phone cannot open it.
    await group.getByText("a phone cannot open this address").waitFor();
    await screenshot(page, "console-open-on-phone-desktop");

    // The phone opens the link as its camera would: a first load of the page at that address.
    const phone = await atrium.open(PHONE, link!.slice(atrium.serve.url.length));
    await phone.page.getByRole("heading", { name: "Sessions" }).waitFor();
    // Signed in with a token of its own, named after the device (the list `atrium token list` prints).
    expect(await phone.page.evaluate(() => localStorage.getItem("atrium.token"))).toMatch(/.{20,}/);
    const tokens = await runAtrium(builtCommand, ["token", "list"], atrium.home.path);
    expect(tokens.stdout).toMatch(/console-ada-s-phone-[0-9a-f]{8}/);
    expect(phone.problems).toEqual([]);
    expect(problems).toEqual([]);
    await phone.page.context().close();
    await page.context().close();
  });
});

/** A QR code drawn as one SVG path of unit squares (`M x y h1v1h-1z`), decoded by jsQR. */
function readSvgQr(path: string | null, size: number): string | null {
  const scale = 4;
  const pixels = new Uint8ClampedArray(size * scale * size * scale * 4).fill(255);
  for (const [, x, y] of (path ?? "").matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        const at = ((Number(y) * scale + dy) * size * scale + Number(x) * scale + dx) * 4;
        pixels.fill(0, at, at + 3);
      }
    }
  }
  return jsQR(pixels, size * scale, size * scale)?.data ?? null;
}

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import type { SyncNamespace } from "../../src/schemas/sync.ts";
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
});

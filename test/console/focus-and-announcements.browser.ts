import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, DESKTOP, goToPage, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { focusIs } from "./focused.ts";

// The console as a keyboard and a screen reader meet it: a navigation names the page in the window's
// title and takes the focus to its heading; a confirm step holds the focus and gives it back; a reply's
// end is said once in a polite live region. And failures are said: earlier messages that could not be
// read (with a second try), events the page could not apply, a stream that keeps failing.
let atrium: ConsoleUnderTest;
let demo: Project;

beforeAll(async () => {
  atrium = await startConsole();
  demo = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Demo" });
}, 120_000);

afterAll(() => atrium?.close());

const newSession = (title: string) => atrium.api<Session>("POST", "/v1/sessions", { projectId: demo.id, harnessId: "echo", title });

async function repliesDone(sessionId: string, items: number): Promise<void> {
  await until(
    () => atrium.api<SessionDetail>("GET", `/v1/sessions/${sessionId}?limit=200`),
    (detail) => detail.conversation.length === items && detail.promptQueue.length === 0 && !detail.conversation.at(-1)!.isGenerating,
    30_000,
  );
}

describe("focus, titles and what is said", () => {
  test("on a desktop: each navigation names the page in the title and puts the focus on its heading", async () => {
    const session = await newSession("Keyboard session");
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/sessions");
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    expect(await page.title()).toBe("Sessions — Atrium");

    await page.getByRole("link", { name: "Projects" }).click();
    await focusIs(page, "h2: Projects");
    expect(await page.title()).toBe("Projects — Atrium");

    // By keyboard: the focus goes on from the heading into the page.
    await page.getByRole("link", { name: "Sessions", exact: true }).focus();
    await page.keyboard.press("Enter");
    await focusIs(page, "h2: Sessions");
    await page.locator(`[data-session="${session.id}"]`).click();
    // The session's own page is read first: its heading, the session's title, takes the focus once drawn.
    await focusIs(page, "h2: Keyboard session");
    expect(await page.title()).toBe("Keyboard session — Atrium");
    await screenshot(page, "console-session-focused-desktop");

    await page.getByRole("link", { name: "← Sessions" }).click();
    await focusIs(page, "h2: Sessions");
    expect(await page.title()).toBe("Sessions — Atrium");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone: the confirm step takes the focus and gives it back on Escape and Cancel; once confirmed, the heading has it", async () => {
    const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Doomed" });
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects");
    const card = page.locator(`[data-project="${project.id}"]`);
    await card.getByRole("button", { name: "Delete", exact: true }).click();
    await focusIs(page, "button: Delete Doomed?");
    await screenshot(page, "console-confirm-step-phone");
    await page.keyboard.press("Escape");
    await card.getByRole("button", { name: "Delete Doomed?" }).waitFor({ state: "detached" });
    await focusIs(page, "button: Delete");

    // By keyboard alone: open, move to Cancel, cancel.
    await page.keyboard.press("Enter");
    await focusIs(page, "button: Delete Doomed?");
    await page.keyboard.press("Tab");
    await focusIs(page, "button: Cancel");
    await page.keyboard.press("Enter");
    await focusIs(page, "button: Delete");

    await page.keyboard.press("Enter");
    await focusIs(page, "button: Delete Doomed?");
    await page.keyboard.press("Enter");
    await card.waitFor({ state: "detached" });
    await focusIs(page, "h2: Projects");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone: a reply's end is said once in the polite live region, with the session's title", async () => {
    const session = await newSession("Spoken session");
    const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`);
    await page.getByRole("heading", { name: "Spoken session" }).waitFor();
    const region = page.locator('[aria-live="polite"]');
    expect(await region.count()).toBe(1);
    // Every change of the region's text, from before the reply streams.
    await page.evaluate(`(() => {
      const region = document.querySelector('[aria-live="polite"]');
      window.said = [];
      new MutationObserver(() => window.said.push(region.textContent)).observe(region, { childList: true, subtree: true, characterData: true });
    })()`);
    await page.getByLabel("Prompt", { exact: true }).fill("/long 2000");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".message.assistant").last().and(page.locator(":not([data-generating])")).waitFor();
    await until(
      () => page.evaluate<string[]>("window.said"),
      (said) => said.length > 0,
    );
    expect(await page.evaluate<string[]>("window.said")).toEqual(["Reply finished in Spoken session."]);

    await page.getByLabel("Prompt", { exact: true }).fill("/long 1000000");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("button", { name: "Cancel turn" }).click();
    await until(
      () => page.evaluate<string[]>("window.said"),
      (said) => said.length > 1,
    );
    expect(await page.evaluate<string[]>("window.said")).toEqual(["Reply finished in Spoken session.", "Reply finished in Spoken session: Cancelled."]);
    expect(await region.textContent()).toBe("Reply finished in Spoken session: Cancelled.");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone: earlier messages that cannot be read say so, and the same button tries again", async () => {
    const session = await newSession("Long talk");
    for (let turn = 1; turn <= 26; turn++) await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: `Prompt ${turn}` });
    await repliesDone(session.id, 52);
    const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`);
    await page.locator(".message.assistant").last().getByText("Echo: Prompt 26").waitFor();

    await page.context().setOffline(true);
    await page.getByRole("button", { name: "Earlier messages" }).click();
    await page.getByRole("alert").getByText("Earlier messages could not be read: The server cannot be reached.").waitFor();
    await focusIs(page, "button: Try again");
    await screenshot(page, "console-earlier-failed-phone");

    await page.context().setOffline(false);
    await page.keyboard.press("Enter");
    await page.locator(".message.user").first().getByText("Prompt 1", { exact: true }).waitFor();
    expect(await page.locator(".message").count()).toBe(52);
    expect(await page.getByText("Earlier messages could not be read").count()).toBe(0);
    // Offline, the stream's tries and the read failed in the network: those are Chromium's reports, nothing else.
    expect(problems.filter((problem) => !problem.includes("ERR_INTERNET_DISCONNECTED"))).toEqual([]);
    await page.context().close();
  });
});

/** Frames no server of ours sends: one that is not JSON, then an event whose payload the project list cannot apply. */
const BROKEN_FRAMES = [
  ": connected",
  'event: project.updated\ndata: {"kind": "project.upd',
  'event: project.created\ndata: {"kind": "project.created", "payload": null}',
  "",
].join("\n\n");

describe("failures of the event stream, said", () => {
  test("on a phone: an event that cannot be read or applied is said on the page and in the console; a failing stream is tried again later each time", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    // The projects list's stream is answered three times with a stream that ends at once, the first time
    // with the broken frames; after that the server answers.
    const opens: number[] = [];
    let answered = 0;
    await page.route(/\/v1\/events\/stream\?/, async (route) => {
      if (!new URL(route.request().url()).searchParams.get("kind")?.includes("project.created")) return route.continue();
      opens.push(performance.now());
      if (answered === 3) return route.continue();
      answered++;
      await route.fulfill({ status: 200, contentType: "text/event-stream", body: answered === 1 ? BROKEN_FRAMES : ": connected\n\n" });
    });
    await goToPage(page, "Projects");
    await page.getByRole("alert").getByText("An update from the server could not be shown (").waitFor();
    await screenshot(page, "console-event-failed-phone");
    await until(
      async () => opens.length,
      (count) => count === 4,
      20_000,
    );
    const waits = opens.slice(1).map((at, index) => at - opens[index]!);
    expect(waits[0]).toBeGreaterThan(900);
    expect(waits[1]).toBeGreaterThan(waits[0]! * 1.5);
    expect(waits[2]).toBeGreaterThan(waits[1]! * 1.5);
    expect(problems.filter((problem) => problem.startsWith("An event-stream subscriber's update could not be read")).length).toBe(1);
    expect(problems.filter((problem) => problem.startsWith("An event-stream subscriber's update could not be shown")).length).toBe(1);

    // The stream the server answers at last is followed as before.
    await page.unroute(/\/v1\/events\/stream\?/);
    await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Made after the failures" });
    await page.getByText("Made after the failures").waitFor();
    expect(problems.length).toBe(2);
    await page.context().close();
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// Managing sessions from a phone (rename, archive, restore, delete, from the list and the session's
// page), finding one by a word of its conversation, and what axe-core says of the pages at phone size.
let atrium: ConsoleUnderTest;

beforeAll(async () => {
  atrium = await startConsole();
}, 120_000);

afterAll(async () => {
  await atrium?.close();
});

async function newSession(title: string, projectName: string): Promise<Session> {
  const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: projectName });
  return atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title });
}

/** Sends prompts through the interface, one after another, each answered before the next. */
async function converse(session: Session, prompts: string[]): Promise<SessionDetail> {
  let detail: SessionDetail | undefined;
  for (const text of prompts) {
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text });
    detail = await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (read) => read.promptQueue.length === 0 && read.conversation.at(-1)?.role === "assistant" && !read.conversation.at(-1)!.isGenerating,
    );
  }
  return detail!;
}

const row = (page: Page, session: Session) => page.locator("li").filter({ has: page.locator(`[data-session="${session.id}"]`) });
const manage = (page: Page, session: Session) => row(page, session).locator(".manage-button");
const size = async (element: Locator) => (await element.boundingBox())!;

/** axe-core's serious and critical violations on the page as it is (its script evaluated in the page, which no CSP refuses). */
async function seriousViolations(page: Page): Promise<string[]> {
  const source = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(source);
  return page.evaluate<string[]>(
    `axe.run(document).then((result) => result.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => violation.id + ": " + violation.nodes.map((node) => node.target.join(" ")).join(", ")))`,
  );
}

describe("managing sessions on a phone", () => {
  test("rename, archive, restore and delete from the list and from the session's page; rows of one title have names of their own", async () => {
    const first = await newSession("Same title", "Alpha");
    const second = await newSession("Same title", "Beta");
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions", true);
    await row(page, second).waitFor();
    await row(page, first).waitFor();
    // Each row's link is named by all it shows: the project tells the two apart.
    const names = await page.locator(".session-row").evaluateAll((links) => links.map((link) => (link as unknown as { innerText: string }).innerText));
    expect(new Set(names).size).toBe(names.length);
    await page.getByRole("link", { name: /^Same title Idle Alpha/ }).waitFor();
    await page.getByRole("link", { name: /^Same title Idle Beta/ }).waitFor();

    expect((await size(manage(page, first))).height).toBeGreaterThanOrEqual(44);
    await manage(page, first).tap();
    await row(page, first).getByRole("button", { name: "Rename Same title" }).tap();
    await row(page, first).getByRole("textbox", { name: "Title" }).fill("Renamed in the list");
    await row(page, first).getByRole("button", { name: "Save" }).tap();
    await row(page, first).locator(".session-title").getByText("Renamed in the list").waitFor();
    await screenshot(page, "console-session-manage-phone");
    expect((await atrium.api<SessionDetail>("GET", `/v1/sessions/${first.id}`)).session.title).toBe("Renamed in the list");

    // Archived: out of the list, in the archived view, and back.
    await row(page, first).getByRole("button", { name: "Archive Renamed in the list" }).tap();
    await row(page, first).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Archived" }).tap();
    await row(page, first).waitFor();
    await manage(page, first).tap();
    await row(page, first).getByRole("button", { name: "Restore Renamed in the list" }).tap();
    await row(page, first).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Archived" }).tap();
    await row(page, first).waitFor();

    // Deleted after the second question.
    await manage(page, second).tap();
    await row(page, second).getByRole("button", { name: "Delete Same title" }).tap();
    await row(page, second).getByRole("button", { name: "Delete Same title?" }).tap();
    await row(page, second).waitFor({ state: "detached" });
    expect(await fetch(`${atrium.serve.url}/v1/sessions/${second.id}`, { headers: { authorization: `Bearer ${atrium.adminToken()}` } })).toHaveProperty(
      "status",
      404,
    );

    // The same from the session's own page.
    await page.locator(`[data-session="${first.id}"]`).tap();
    await page.getByRole("heading", { name: "Renamed in the list" }).waitFor();
    await page.locator(".session-manage > summary").tap();
    await page.getByRole("button", { name: "Rename Renamed in the list" }).tap();
    await page.getByRole("textbox", { name: "Title" }).fill("Renamed on its page");
    await page.getByRole("button", { name: "Save" }).tap();
    await page.getByRole("heading", { name: "Renamed on its page" }).waitFor();
    await page.getByRole("button", { name: "Delete Renamed on its page" }).tap();
    await page.getByRole("button", { name: "Delete Renamed on its page?" }).tap();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.locator(`[data-session="${first.id}"]`).waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a word only in a reply finds its session, with where it matched; the snippet opens the session at that reply", async () => {
    const session = await newSession("Found by its reply", "Search");
    const detail = await converse(session, ["/long 3", ...Array.from({ length: 6 }, (_, index) => `Later prompt ${index} with words of its own.`)]);
    const found = detail.conversation.find((item) => item.role === "assistant" && item.text.includes("chunk"))!;
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions", true);
    await page.getByRole("searchbox", { name: "Find sessions" }).fill("chunk");
    const snippet = row(page, session).locator(".search-snippet");
    await snippet.locator("mark").first().waitFor();
    expect(await snippet.locator("mark").first().textContent()).toBe("chunk");
    await screenshot(page, "console-session-search-phone");
    await snippet.tap();
    await page.getByRole("heading", { name: "Found by its reply" }).waitFor();
    const message = page.locator(`[data-item="${found.id}"]`);
    await message.and(page.locator(".found")).waitFor();
    const box = await until(
      () => size(message),
      (shown) => shown.y >= 0 && shown.y < PHONE.height / 2,
    );
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("axe-core finds no serious or critical violation on the sessions list and a session's page at phone size", async () => {
    const session = await newSession("Checked by axe", "Axe");
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "/ask" });
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (read) => read.pendingQuestion !== null,
    );
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions", true);
    await row(page, session).waitFor();
    await manage(page, session).tap();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator(`[data-session="${session.id}"]`).tap();
    await page.getByRole("heading", { name: "Checked by axe" }).waitFor();
    await page.getByRole("form", { name: "The agent asks" }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Menu" }).tap();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

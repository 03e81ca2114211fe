import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// Lists longer than a page, as someone with months of sessions meets them on a phone: the console reads
// the first page, the next ones as the user scrolls, and a search as the server's `q`; events keep what
// is shown current without reading the list again.
let atrium: ConsoleUnderTest;
const SESSIONS = 130;
const PROJECTS = 60;
/** Oldest first: session n is "Task n", in Harbour when n is odd and in Meadow when even. */
const sessions: Session[] = [];
/** The titles in the server's order (sessions made within one millisecond are ordered by id). */
let serverOrder: string[] = [];

beforeAll(async () => {
  atrium = await startConsole();
  const harbour = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Harbour" });
  const meadow = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Meadow" });
  for (let index = 3; index <= PROJECTS; index++) {
    await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: `Project ${String(index).padStart(2, "0")}` });
  }
  for (let index = 1; index <= SESSIONS; index++) {
    const projectId = index % 2 === 1 ? harbour.id : meadow.id;
    sessions.push(await atrium.api<Session>("POST", "/v1/sessions", { projectId, harnessId: "echo", title: `Task ${index}` }));
  }
  serverOrder = (await atrium.api<Session[]>("GET", "/v1/sessions?limit=200")).map((session) => session.title);
}, 120_000);

afterAll(() => atrium?.close());

/** The list requests the page makes (`GET /v1/sessions` or `/v1/projects`, any query), as they are sent. */
function listRequests(page: Page, list: "sessions" | "projects"): URL[] {
  const seen: URL[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname === `/v1/${list}`) seen.push(url);
  });
  return seen;
}

const titles = (page: Page) => page.locator(".session-title").allTextContents();
/** The titles of the server's order that pass `keep`. */
const inServerOrder = (keep: (number: number) => boolean) => serverOrder.filter((title) => keep(Number(title.replace("Task ", ""))));

async function scrollToEnd(page: Page): Promise<void> {
  await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
}

describe("long lists in the console", () => {
  test("sessions on a phone: the first page alone, the next ones as the user scrolls, each session once", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    const requests = listRequests(page, "sessions");
    const firstPage = page.waitForResponse((response) => new URL(response.url()).pathname === "/v1/sessions");
    await page.goto(`${atrium.serve.url}/#/sessions`);
    await page.locator(".session-row").first().waitFor();
    expect(await titles(page)).toEqual(serverOrder.slice(0, 50));
    // Chromium takes zstd, the cheapest of the answers' encodings.
    expect((await firstPage).headers()["content-encoding"]).toBe("zstd");
    // No other list request until the user scrolls.
    await page.waitForTimeout(1000);
    expect(requests.length).toBe(1);
    expect(requests[0]!.searchParams.has("cursor")).toBe(false);
    const newest = Number(serverOrder[0]!.replace("Task ", ""));
    expect(await page.locator(".session-row").first().locator(".session-project").textContent()).toBe(newest % 2 === 1 ? "Harbour" : "Meadow");

    await scrollToEnd(page);
    await page.locator(".session-row").nth(99).waitFor();
    await scrollToEnd(page);
    await page
      .locator(".session-row")
      .nth(SESSIONS - 1)
      .waitFor();
    await page.getByRole("button", { name: "Show more sessions" }).waitFor({ state: "detached" });
    expect(await titles(page)).toEqual(serverOrder);
    expect(requests.length).toBe(3);
    expect(requests.slice(1).every((url) => url.searchParams.has("cursor"))).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a search is the server's: by title or project, paged like the list; cleared, the whole list again", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions");
    await page.locator(".session-row").first().waitFor();
    const requests = listRequests(page, "sessions");
    const search = page.getByRole("searchbox", { name: "Find sessions" });
    await search.fill("TASK 12");
    await page.locator(".session-title", { hasText: /^Task 12$/ }).waitFor();
    expect(await titles(page)).toEqual(inServerOrder((number) => String(number).startsWith("12")));
    expect(requests.at(-1)!.searchParams.get("q")).toBe("TASK 12");
    await screenshot(page, "console-sessions-search-phone");

    // By project: Meadow holds the 65 even tasks, more than a page.
    await search.fill("meadow");
    await page.locator(".session-title", { hasText: /^Task 130$/ }).waitFor();
    await page.locator(".session-title", { hasText: /^Task 129$/ }).waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Show more sessions" }).waitFor();
    expect((await titles(page)).length).toBe(50);
    await scrollToEnd(page);
    await page.locator(".session-row").nth(64).waitFor();
    expect(await titles(page)).toEqual(inServerOrder((number) => number % 2 === 0));
    expect(requests.at(-1)!.searchParams.get("q")).toBe("meadow");
    expect(requests.at(-1)!.searchParams.has("cursor")).toBe(true);

    await search.fill("no such words");
    await page.getByText("No session's title, project or conversation holds that.").waitFor();
    await search.fill("");
    await page.locator(".session-row").nth(49).waitFor();
    expect(await titles(page)).toEqual(serverOrder.slice(0, 50));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("events keep the shown page current: a new session on top, an updated one moved up, a deleted one gone, no list read again", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    const requests = listRequests(page, "sessions");
    await page.goto(`${atrium.serve.url}/#/sessions`);
    await page.locator(".session-row").first().waitFor();
    const [meadow] = await atrium.api<Project[]>("GET", "/v1/projects?q=meadow");
    const fresh = await atrium.api<Session>("POST", "/v1/sessions", { projectId: meadow!.id, harnessId: "echo", title: "Fresh" });
    await page.locator(".session-row").first().getByText("Fresh").waitFor();
    // Task 100 is on the page, Task 5 past it: renamed, each is now the latest and comes first.
    await atrium.api("PATCH", `/v1/sessions/${sessions[99]!.id}`, { title: "Task 100, renamed" });
    await page.locator(".session-row").first().getByText("Task 100, renamed").waitFor();
    await atrium.api("PATCH", `/v1/sessions/${sessions[4]!.id}`, { title: "Task 5, renamed" });
    await page.locator(".session-row").first().getByText("Task 5, renamed").waitFor();
    await atrium.api("DELETE", `/v1/sessions/${sessions[128]!.id}`);
    await page.locator(`[data-session="${sessions[128]!.id}"]`).waitFor({ state: "detached" });
    const shown = await titles(page);
    expect(shown.slice(0, 4)).toEqual(["Task 5, renamed", "Task 100, renamed", "Fresh", serverOrder.filter((title) => title !== "Task 129")[0]!]);
    expect(shown).not.toContain("Task 100");
    expect(new Set(shown).size).toBe(shown.length);
    expect(requests.length).toBe(1);
    expect(problems).toEqual([]);
    await page.context().close();
    await atrium.api("DELETE", `/v1/sessions/${fresh.id}`);
  });

  test("a long conversation: one read of its last page; earlier messages only when asked for", async () => {
    const session = sessions[0]!;
    for (let turn = 1; turn <= 30; turn++) await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: `Prompt ${turn}` });
    await until(
      () => atrium.api<{ conversation: Array<{ isGenerating: boolean }>; promptQueue: unknown[] }>("GET", `/v1/sessions/${session.id}?limit=200`),
      (detail) => detail.conversation.length === 60 && detail.promptQueue.length === 0 && !detail.conversation.at(-1)!.isGenerating,
      30_000,
    );
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    const reads: URL[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (request.method() === "GET" && url.pathname === `/v1/sessions/${session.id}`) reads.push(url);
    });
    await page.goto(`${atrium.serve.url}/#/sessions/${session.id}`);
    await page.locator(".message.assistant").last().getByText("Echo: Prompt 30").waitFor();
    await page.waitForTimeout(500);
    expect(await page.locator(".message").count()).toBe(50);
    expect(reads.length).toBe(1);
    await page.getByRole("button", { name: "Earlier messages" }).click();
    await page.locator(".message.user").first().getByText("Prompt 1", { exact: true }).waitFor();
    expect(await page.locator(".message").count()).toBe(60);
    expect(reads.length).toBe(2);
    expect(reads[1]!.searchParams.has("before")).toBe(true);
    await page.getByRole("button", { name: "Earlier messages" }).waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("projects: the first page, more on scroll, found by name", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/settings");
    const requests = listRequests(page, "projects");
    await page.goto(`${atrium.serve.url}/#/projects`);
    const cards = page.locator(".project-cards > li");
    await cards.first().waitFor();
    await page.waitForTimeout(500);
    expect(await cards.count()).toBe(50);
    expect(requests.length).toBe(1);
    await scrollToEnd(page);
    await cards.nth(PROJECTS - 1).waitFor();
    expect(requests.length).toBe(2);
    await page.getByRole("searchbox", { name: "Find projects" }).fill("project 5");
    await page.getByText("Project 59").waitFor();
    await until(
      () => cards.count(),
      (count) => count === 10,
    );
    expect(requests.at(-1)!.searchParams.get("q")).toBe("project 5");
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import {
  CLAUDE_PERMISSION_OPTIONS,
  type ConsoleUnderTest,
  DESKTOP,
  keptForOffline,
  overflowsSideways,
  PHONE,
  screenshot,
  startConsole,
} from "../helpers/console-browser.ts";
import { gateFile } from "../fixtures/scripted-agent/agent-app.ts";
import { git } from "../helpers/git-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { SCRIPTED_AGENT } from "../sessions/session-helpers.ts";

// The console on a phone (390×844, a touch screen) as a person holds it: the view follows the
// conversation and brings a question to the reader, the question card puts the safe choice first and
// the answer stays beside its call, every page and every part of a session is a tap away, and what a
// thumb taps is big enough.
const ROOT = "/work/demo";
const writeCall = (id: string) => ({
  update: {
    sessionUpdate: "tool_call",
    toolCallId: id,
    status: "pending",
    title: "Write hello.txt",
    kind: "edit",
    content: [{ type: "diff", path: `${ROOT}/hello.txt`, oldText: null, newText: "hi\n" }],
    locations: [{ path: `${ROOT}/hello.txt` }],
  },
});
/** A permission as Claude Code asks it: "Always Allow" first. */
const permission = (id: string) => ({
  permission: {
    title: "Write hello.txt",
    options: CLAUDE_PERMISSION_OPTIONS,
    toolCall: { toolCallId: id, kind: "edit" },
  },
});
const finished = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });
const PARAGRAPHS = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} of a reply long enough to fill a phone's screen twice over.`).join("\n\n");

const SCRIPT = {
  prompts: {
    stream: [
      { chunk: `${PARAGRAPHS}\n\n` },
      { gate: "stream" },
      { chunk: `After the gate.\n\n${PARAGRAPHS}\n\n` },
      { gate: "stream-end" },
      { chunk: "The end." },
    ],
    write: [{ chunk: "Writing it.\n\n" }, writeCall("write-1"), permission("write-1"), finished("write-1"), { chunk: "Written." }],
    "write later": [{ chunk: "Soon.\n\n" }, { gate: "ask" }, writeCall("write-2"), permission("write-2"), finished("write-2"), { chunk: "Done." }],
    "*": [{ chunk: PARAGRAPHS }],
  },
};

let atrium: ConsoleUnderTest;
const dir = makeTempDir("atrium-phone-");
const stateDir = join(dir.path, "agent-state");
const openGate = (name: string) => {
  mkdirSync(join(stateDir, "gates"), { recursive: true });
  writeFileSync(gateFile(stateDir, name), "");
};

beforeAll(async () => {
  const scriptFile = join(dir.path, "script.json");
  writeFileSync(scriptFile, JSON.stringify(SCRIPT));
  atrium = await startConsole(
    { SCRIPTED_AGENT_SCRIPT: scriptFile, SCRIPTED_AGENT_STATE: stateDir, SCRIPTED_AGENT_BUN: process.execPath },
    { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  );
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  dir.remove();
});

async function newSession(title: string, harnessId = "scripted", projectBody: Record<string, unknown> = { isScratch: true, name: title }) {
  const project = await atrium.api<Project>("POST", "/v1/projects", projectBody);
  return atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId, title });
}

async function openOnPhone(session: Session) {
  const opened = await atrium.openSignedIn(PHONE, `/#/sessions/${encodeURIComponent(session.id)}`, true);
  await opened.page.getByRole("heading", { name: session.title }).waitFor();
  return opened;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel("Prompt", { exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).tap();
  await page.getByLabel("Prompt", { exact: true }).and(page.locator(":placeholder-shown")).waitFor();
}

/** Where an element is on the screen against the sticky bars: whether all of it is between them. */
const betweenBars = async (element: Locator) => {
  const box = (await element.boundingBox())!;
  const page = element.page();
  const barsEnd = await page.evaluate<number>(
    `Math.max(...[...document.querySelectorAll(".page-top, .session-sticky")].map((bar) => bar.getBoundingClientRect().bottom))`,
  );
  const composerTop = await page.evaluate<number>(`document.querySelector(".composer").getBoundingClientRect().top`);
  return { top: box.y, bottom: box.y + box.height, barsEnd, composerTop, between: box.y >= barsEnd - 1 && box.y + box.height <= composerTop + 1 };
};

/** The page's getComputedStyle, as far as a test reads it (the tests' types have no DOM). */
interface StyleReader {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const leftToScroll = (page: Page) => page.evaluate<number>("document.documentElement.scrollHeight - innerHeight - scrollY");
const size = async (element: Locator) => (await element.boundingBox())!;

/** What a thumb taps: at least `least` px each way (44 for an action, 32 for a row), and all of it on the screen. */
async function expectTappable(target: Locator, least = 44): Promise<void> {
  const box = await size(target);
  expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(least);
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
}
const lastReply = (page: Page) => page.locator(".message.assistant").last();

describe("the console on a phone", () => {
  test("after Send the prompt shows above the composer; a streaming reply is followed until the reader scrolls up, then Jump to latest", async () => {
    const session = await newSession("Following");
    for (const text of ["first", "second"]) await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text });
    const { page, problems } = await openOnPhone(session);
    await page.locator(".message.assistant").nth(1).and(page.locator(":not([data-generating])")).waitFor();

    await send(page, "a question of mine");
    const prompt = page.locator(".message.user").last().filter({ hasText: "a question of mine" });
    await prompt.waitFor();
    await until(
      () => betweenBars(prompt),
      (place) => place.between,
    );

    // A reply longer than the screen: it grows below the prompt, which stays at the top, and the way to its end is offered.
    await send(page, "stream");
    await lastReply(page).getByText("Paragraph 29").waitFor();
    const streamed = page.locator(".message.user").last().filter({ hasText: "stream" });
    expect(await betweenBars(streamed).then((place) => place.between)).toBe(true);
    await screenshot(page, "console-sent-prompt-phone");
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await jump.tap();
    // From there the reply is followed as it grows.
    openGate("stream");
    await lastReply(page).getByText("After the gate.").waitFor();
    await until(
      () => leftToScroll(page),
      (left) => left < 2,
    );
    await jump.waitFor({ state: "detached" });
    // The reader scrolls up: the page stays there as the reply ends, and offers the way back.
    await page.evaluate("scrollBy(0, -1500)");
    await jump.waitFor();
    openGate("stream-end");
    await lastReply(page).getByText("The end.").waitFor();
    expect(await leftToScroll(page)).toBeGreaterThan(1000);
    await screenshot(page, "console-jump-to-latest-phone");
    await jump.tap();
    await until(
      () => leftToScroll(page),
      (left) => left < 2,
    );
    expect(await betweenBars(lastReply(page).getByText("The end.")).then((place) => place.between)).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a question comes into view, Allow once first and Reject apart; on another tab a bar reaches it in one tap; each answer is said beside its call", async () => {
    const session = await newSession("Questions");
    const { page, problems } = await openOnPhone(session);
    await send(page, "write");
    const question = page.getByRole("form", { name: "The agent asks" });
    await question.waitFor();
    await until(
      () => betweenBars(question.getByRole("button", { name: "Allow Allow once" })),
      (place) => place.between,
    );
    // While the question waits, the session says so (it is not writing).
    await page.locator(".session-header").getByText("Waiting for you").waitFor();
    await lastReply(page).getByText("Waiting for you").waitFor();
    // The safe choice first and primary, Reject its own colour, the lasting choice last.
    expect(await question.locator(".option-button").allTextContents()).toEqual(["Allow Allow once", "Reject", "Always Allow"]);
    const background = (name: string) =>
      question.getByRole("button", { name, exact: true }).evaluate((button) => (globalThis as unknown as StyleReader).getComputedStyle(button).backgroundColor);
    expect(await background("Reject")).not.toBe(await background("Allow Allow once"));
    expect(await background("Always Allow")).not.toBe(await background("Allow Allow once"));
    const allow = await size(question.getByRole("button", { name: "Allow Allow once" }));
    const always = await size(question.getByRole("button", { name: "Always Allow" }));
    expect(allow.y).toBeLessThan(always.y);
    // Each label starts at its button's left padding, the wide lasting choice's too (it was centred).
    const indents = await page.evaluate<number[]>(
      `[...document.querySelectorAll(".question-form .option-button")].map((button) => {
        const words = document.createRange();
        words.selectNodeContents(button.firstChild);
        return Math.round(words.getBoundingClientRect().left - button.getBoundingClientRect().left);
      })`,
    );
    // Reject's border is 1 px thicker.
    expect(Math.max(...indents) - Math.min(...indents)).toBeLessThanOrEqual(1);
    await screenshot(page, "console-question-card-phone");

    await question.getByRole("button", { name: "Allow Allow once" }).tap();
    await question.waitFor({ state: "detached" });
    const written = page.locator('[data-tool-call="write-1"]');
    await written.getByText("Allowed once").waitFor();
    // The focus went on where the turn did, not to the top of the page.
    await until(
      () => page.evaluate<boolean>(`document.activeElement?.closest(".message") !== null`),
      (inConversation) => inConversation,
    );
    await lastReply(page).getByText("Written.").waitFor();

    // A question that comes while the reader looks at another part of the session: a bar pinned above it.
    await send(page, "write later");
    await page.getByRole("tab", { name: "Changes" }).tap();
    await page.getByRole("tabpanel", { name: "Changes" }).getByRole("button", { name: "Show changes" }).waitFor();
    openGate("ask");
    const bar = page.getByRole("button", { name: /^The agent asks: Write hello\.txt/ });
    await bar.waitFor();
    await screenshot(page, "console-question-bar-phone");
    await bar.tap();
    await until(
      () => betweenBars(question.getByRole("button", { name: "Allow Allow once" })),
      (place) => place.between,
    );
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Allow Allow once");
    await bar.waitFor({ state: "detached" });
    await question.getByRole("button", { name: "Reject" }).tap();
    await page.locator('[data-tool-call="write-2"]').getByText("Rejected").waitFor();
    await page.locator('[data-tool-call="write-1"]').getByText("Allowed once").waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("every page and every part of a session is a tap away with no sideways scroll; actions are 44 px, rows 32 px; the hints fit a phone", async () => {
    const repo = join(dir.path, "repo");
    mkdirSync(repo);
    git(["init", "--quiet", repo]);
    writeFileSync(join(repo, "app.ts"), "const port = 3000;\n");
    git(["add", "."], repo);
    git(["commit", "--quiet", "-m", "first"], repo);
    writeFileSync(join(repo, "app.ts"), "const port = 8080;\n");
    const session = await newSession("Layout", "echo", { folderPath: repo });
    const { page, problems } = await openOnPhone(session);
    expect(await overflowsSideways(page)).toBe(false);

    // The pages: behind Menu, each a row in the screen, and Sign out with them.
    const menu = page.getByRole("button", { name: "Menu" });
    await expectTappable(menu);
    const labels = ["Sessions", "Projects", "Harnesses", "Skills", "MCP servers", "Plugins", "Machines", "Settings"];
    await menu.tap();
    expect(await page.locator("#page-menu").getByRole("link").allTextContents()).toEqual(labels);
    await expectTappable(page.getByRole("button", { name: "Sign out" }));
    await menu.tap();
    for (const label of labels) {
      await menu.tap();
      const link = page.getByRole("link", { name: label, exact: true });
      await expectTappable(link);
      if (label === "Settings") await screenshot(page, "console-menu-phone");
      await link.tap();
      await page.getByRole("heading", { name: label, level: 2 }).waitFor();
      expect(await overflowsSideways(page)).toBe(false);
    }

    // The session's own ways on: back to the list, its terminal (and back), Manage and what it holds.
    await page.goto(`${atrium.serve.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.getByRole("heading", { name: "Layout" }).waitFor();
    await expectTappable(page.getByRole("link", { name: "← Sessions" }));
    await expectTappable(page.getByText("Manage", { exact: true }));
    await page.getByText("Manage", { exact: true }).tap();
    for (const action of await page.locator(".session-manage").getByRole("button").all()) await expectTappable(action);
    await page.getByText("Manage", { exact: true }).tap();
    const terminal = page.getByRole("link", { name: "Terminal", exact: true });
    await expectTappable(terminal);
    await terminal.tap();
    await page.getByRole("heading", { name: "Terminal · Layout" }).waitFor();
    expect(await overflowsSideways(page)).toBe(false);
    const back = page.getByRole("link", { name: "← Session", exact: true });
    await expectTappable(back);
    await back.tap();
    await page.getByRole("heading", { name: "Layout" }).waitFor();
    expect(await page.getByLabel("Prompt", { exact: true }).getAttribute("placeholder")).not.toContain("Ctrl");
    // A prompt being written survives a reload.
    await page.getByLabel("Prompt", { exact: true }).fill("half a thought");
    await page.reload();
    await page.getByRole("heading", { name: "Layout" }).waitFor();
    expect(await page.getByLabel("Prompt", { exact: true }).inputValue()).toBe("half a thought");
    await expectTappable(page.getByRole("button", { name: "Send" }));
    await expectTappable(page.getByText("Attach files"));
    await send(page, "/usage");
    await lastReply(page).getByText("Usage reported.").waitFor();
    // Each part of the session one tap away, a tab 44 px tall.
    const tabs = page.getByRole("tab");
    expect(await tabs.allTextContents()).toEqual(["Conversation", "Changes", "Options", "Usage", "Goal", "Schedules"]);
    for (const tab of await tabs.all()) await expectTappable(tab);
    await page.getByRole("tab", { name: "Options" }).tap();
    // What a choice does is said, not left to a tooltip a phone cannot hover.
    await page.getByRole("tabpanel", { name: "Options" }).getByText("Echo at once").waitFor();
    await page.getByRole("tab", { name: "Usage" }).tap();
    await page.getByRole("tabpanel", { name: "Usage" }).getByText("0.01 USD").waitFor();
    await page.getByRole("tab", { name: "Goal" }).tap();
    await expectTappable(page.getByRole("button", { name: "Set goal" }));
    await page.getByRole("tab", { name: "Schedules" }).tap();
    await expectTappable(page.getByRole("tabpanel", { name: "Schedules" }).getByRole("combobox", { name: /^When/ }));
    await page.getByRole("tab", { name: "Changes" }).tap();
    const changes = page.getByRole("tabpanel", { name: "Changes" });
    await changes.getByRole("button", { name: "Show changes" }).tap();
    const row = changes.locator('[data-path="app.ts"] .changed-file-name');
    await row.waitFor();
    await expectTappable(row, 32);
    await expectTappable(changes.getByRole("button", { name: "Refresh" }));
    // The conversation is not below the parts: the Changes tab shows no message.
    expect(await page.locator(".message").first().isVisible()).toBe(false);
    await screenshot(page, "console-session-tabs-phone");
    expect(await overflowsSideways(page)).toBe(false);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop the session page shows the conversation beside its side column, with no tabs, and keeps its layout from its first frame", async () => {
    const session = await newSession("Steady", "echo");
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "/usage" });
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/sessions");
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`**/v1/sessions/${session.id}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${atrium.serve.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await page.getByText("Loading…").waitFor();
    const loading = await size(page.locator("main"));
    // Every shift of the layout as the page renders, as the browser scores it (cumulative layout shift).
    await page.evaluate(
      `window.shifted = 0; new PerformanceObserver((list) => list.getEntries().forEach((shift) => { window.shifted += shift.value })).observe({ type: "layout-shift" })`,
    );
    release();
    await page.getByRole("heading", { name: "Steady" }).waitFor();
    expect((await size(page.locator("main"))).width).toBe(loading.width);
    await lastReply(page).getByText("Usage reported.").waitFor();
    const side = page.getByRole("complementary", { name: "Session details" });
    await side.getByRole("region", { name: "Usage" }).getByText("0.01 USD").waitFor();
    // The side column shows every part beside the conversation: no tab repeats one.
    expect(await page.getByRole("tablist").count()).toBe(0);
    expect(await page.getByRole("tabpanel").count()).toBe(0);
    for (const part of ["Options", "Usage", "Goal", "Changes"]) expect(await page.getByRole("region", { name: part }).isVisible()).toBe(true);
    expect((await size(side)).x).toBeGreaterThan((await size(page.getByRole("list", { name: "Conversation" }))).x);
    expect(await page.evaluate<number>("window.shifted")).toBeLessThan(0.01);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a session opened once reads offline after a reload, marked so; a page opened while the server is down comes back by itself once it returns", async () => {
    const kept = await newSession("Kept for later");
    await atrium.api("POST", `/v1/sessions/${kept.id}/prompts`, { text: "tell me" });
    await until(
      () => atrium.api<{ conversation: Array<{ isGenerating: boolean }> }>("GET", `/v1/sessions/${kept.id}`),
      (detail) => detail.conversation.length === 2 && !detail.conversation[1]!.isGenerating,
    );
    const unseen = await newSession("Opened while down");
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions", true);
    // Both rows drawn, so the tap lands on the row it names.
    await page.locator(`[data-session="${unseen.id}"]`).waitFor();
    await page.locator(`[data-session="${kept.id}"]`).tap();
    await lastReply(page).getByText("Paragraph 29").waitFor();
    // The service worker keeps the shell once it runs; the page keeps what it read.
    await keptForOffline(page, [`/v1/sessions/${kept.id}`, "/v1/sessions"]);

    await atrium.crash();
    await page.reload();
    await page.getByRole("heading", { name: "Kept for later" }).waitFor();
    await lastReply(page).getByText("Paragraph 29").waitFor();
    await page.getByRole("status").getByText("Offline: shown as this device kept it when last read.").waitFor();
    await screenshot(page, "console-offline-kept-phone");
    await page.getByRole("link", { name: "← Sessions" }).tap();
    await page.locator(`[data-session="${kept.id}"]`).waitFor();

    // A session never read: said, then read by itself once the server is back.
    await page.evaluate(`location.hash = "#/sessions/${unseen.id}"`);
    await page.getByRole("alert").getByText("The server cannot be reached.").waitFor();
    await atrium.restart();
    await page.getByRole("heading", { name: "Opened while down" }).waitFor({ timeout: 10_000 });
    await page.getByRole("status").waitFor({ state: "detached" });
    // Chromium reports the tries while the server was down and the streams the crash cut.
    expect(problems.filter((problem) => !/net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING)/.test(problem))).toEqual([]);
    await page.context().close();
  });

  test("a reply's tool calls that could not be read are read again by themselves once the server answers", async () => {
    const session = await newSession("Details again");
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "write" });
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (detail) => detail.pendingQuestion !== null,
    );
    await atrium.api(
      "POST",
      `/v1/sessions/${session.id}/questions/${(await atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`)).pendingQuestion!.questionId}/answer`,
      {
        answers: { permission: { optionIds: ["allow"] } },
      },
    );
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (detail) => !detail.conversation.at(-1)!.isGenerating,
    );
    const { page, problems } = await atrium.openSignedIn(PHONE, "/", true);
    // The details cannot be reached, as on a network that dropped them.
    await page.route("**/transcript/**", (route) => route.abort("connectionrefused"));
    await page.goto(`${atrium.serve.url}/#/sessions/${encodeURIComponent(session.id)}`);
    await lastReply(page)
      .getByText(/^Its tool calls could not be read/)
      .waitFor();
    await page.unroute("**/transcript/**");
    await page.locator('[data-tool-call="write-1"]').waitFor();
    await lastReply(page)
      .getByText(/^Its tool calls could not be read/)
      .waitFor({ state: "detached" });
    expect(problems.filter((problem) => !problem.includes("net::ERR_CONNECTION_REFUSED"))).toEqual([]);
    await page.context().close();
  });
});

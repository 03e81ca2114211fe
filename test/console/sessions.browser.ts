import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, refusedRequest, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { git } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// Sessions in the console with the echo agent, as a person runs them: start one, stream replies, answer
// a question, approve a plan, edit the queue, reload in the middle of a reply.
let atrium: ConsoleUnderTest;
const files = makeTempDir("atrium-attach-");

beforeAll(async () => {
  atrium = await startConsole();
  await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Demo" });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  files.remove();
});

/** `chunk 0 chunk 1 … chunk n-1 `: what `/long n` streams. */
const longReply = (count: number) => Array.from({ length: count }, (_, index) => `chunk ${index} `).join("");

const lastReply = (page: Page) => page.locator(".message.assistant").last();

/** A reply drawn as markdown (paragraphs cut where the text runs long) has the same words, whitespace aside. */
const words = (text: string | null) => (text ?? "").replace(/\s+/g, "");

/** `tap`: where the button is, not once it is still (while a reply streams above, see the queue's taps below). */
async function send(page: Page, text: string, tap: { force?: true } = {}): Promise<void> {
  await page.getByLabel("Prompt", { exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).click(tap);
  await page.getByLabel("Prompt", { exact: true }).and(page.locator(":placeholder-shown")).waitFor();
}

async function newSession(page: Page, title: string): Promise<string> {
  await page.goto(`${atrium.serve.url}/#/sessions`);
  await page.getByRole("button", { name: "New session" }).click();
  await page.getByLabel("Agent").selectOption("echo");
  await page.getByLabel("Title").fill(title);
  await page.getByRole("button", { name: "Start" }).click();
  await page.getByRole("heading", { name: title }).waitFor();
  return decodeURIComponent(new URL(page.url()).hash.replace("#/sessions/", ""));
}

describe("sessions in the console", () => {
  test("on a phone: start a session, stream /long 2000 whole, answer /ask, approve a /plan, attach a file", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions");
    await page.getByText("No sessions yet.").waitFor();
    await newSession(page, "Phone session");

    await send(page, "/long 2000");
    await lastReply(page).and(page.locator(":not([data-generating])")).waitFor();
    expect(words(await lastReply(page).locator(".message-text").textContent())).toBe(words(longReply(2000)));

    await send(page, "/ask");
    const question = page.getByRole("form", { name: "The agent asks" });
    // The question shows what it asks about: the file and the text the call would write.
    await question.getByText("Hello from the echo agent.").waitFor();
    // Drawn as a diff: a new file, its one line added, numbered.
    const diff = question.getByRole("figure", { name: /^Changes to .*hello\.txt$/ });
    expect(await diff.locator("figcaption").textContent()).toContain("new file");
    expect(await diff.locator("tr.diff-added").allTextContents()).toEqual(["1+Hello from the echo agent."]);
    await screenshot(page, "console-session-question-phone");
    // One tap answers; the option says what it does in ACP's words.
    await question.getByRole("button", { name: "Allow Allow once" }).click();
    await lastReply(page).getByText("You chose allow.").waitFor();
    expect(await question.count()).toBe(0);

    // The agent's options are a tab of the session on a phone.
    await page.getByRole("tab", { name: "Options" }).click();
    await page.getByLabel("Mode").selectOption("plan");
    await page.getByRole("tab", { name: "Conversation" }).click();
    await send(page, "/plan");
    const plan = page.getByRole("region", { name: "Plan" });
    await plan.getByRole("button", { name: "Approve plan" }).waitFor();
    expect(await plan.locator("li").evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))).toEqual([
      "completed",
      "in_progress",
      "pending",
    ]);
    await page.locator(".session-header").getByText("Waiting for you").waitFor();
    await screenshot(page, "console-session-plan-phone");
    await plan.getByRole("button", { name: "Approve plan" }).click();
    await plan.getByRole("button", { name: "Approve plan" }).waitFor({ state: "detached" });
    await page.locator(".session-header").getByText("Idle").waitFor();
    expect(await page.getByLabel("Mode").inputValue()).toBe("default");

    const notes = join(files.path, "notes.txt");
    writeFileSync(notes, "remember the milk\n");
    await page.getByLabel("Attach files").setInputFiles(notes);
    await page.getByRole("button", { name: "Remove notes.txt" }).waitFor();
    await send(page, "read this");
    await page.locator(".message.user").last().getByText("notes.txt").waitFor();
    await lastReply(page).and(page.locator(":not([data-generating])")).waitFor();
    expect(await lastReply(page).locator(".message-text").textContent()).toStartWith("Echo: read this");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone: a reply's markdown is drawn (headings, lists, tasks, tables, code with a copy button), and nothing in it runs", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions");
    await newSession(page, "Markdown session");
    const markdown = [
      "What I did:",
      "",
      "## Done",
      "",
      "I created **hello.txt** and changed `main.ts`:",
      "",
      "- [x] write the file",
      "- [ ] run the tests",
      "",
      "| file | lines |",
      "|---|---:|",
      "| hello.txt | 3 |",
      "",
      "```ts",
      'const greeting = "hello";',
      "",
      "console.log(greeting);",
      "```",
      "",
      '<script>window.replyRan = true</script><img src=x onerror="window.replyRan = true">',
      "",
      "[a link](https://example.com) and [a trap](javascript:window.replyRan=true)",
    ].join("\n");
    await send(page, markdown);
    const reply = lastReply(page);
    await reply.and(page.locator(":not([data-generating])")).waitFor();
    await reply.getByRole("heading", { name: "Done", level: 2 }).waitFor();
    expect(await reply.locator("strong").textContent()).toBe("hello.txt");
    expect(
      await reply.locator("li.task input[type=checkbox]").evaluateAll((boxes) => boxes.map((box) => (box as unknown as { checked: boolean }).checked)),
    ).toEqual([true, false]);
    expect(await reply.locator("td").allTextContents()).toEqual(["hello.txt", "3"]);
    const code = reply.locator(".code-block");
    // The blank line inside the fence does not split the block.
    expect(await code.locator("code").textContent()).toBe('const greeting = "hello";\n\nconsole.log(greeting);');
    expect(await code.locator(".code-language").textContent()).toBe("ts");
    await code.getByRole("button", { name: "Copy" }).waitFor();
    // Raw HTML is shown as text; a javascript: link is no link; nothing ran.
    expect(await reply.locator("script, img").count()).toBe(0);
    await reply.getByText("<script>window.replyRan = true</script>", { exact: false }).waitFor();
    expect(await reply.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")))).toEqual(["https://example.com"]);
    expect(await page.evaluate("window.replyRan === undefined")).toBe(true);
    // The reply from its heading, below the page's sticky top bar.
    await reply.getByRole("heading", { name: "Done", level: 2 }).evaluate((heading) => heading.scrollIntoView({ block: "start" }));
    await page.evaluate("scrollBy(0, -120)");
    await screenshot(page, "console-session-markdown-phone");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: the session's changes, a file's diff with its changed words marked, side by side where the page is wide", async () => {
    const repo = join(files.path, "repo");
    mkdirSync(repo);
    git(["init", "--quiet", repo]);
    writeFileSync(join(repo, "app.ts"), "const port = 3000;\nlisten(port);\n");
    git(["add", "."], repo);
    git(["commit", "--quiet", "-m", "first"], repo);
    writeFileSync(join(repo, "app.ts"), "const port = 8080;\nlisten(port);\nlog(port);\n");
    writeFileSync(join(repo, "notes.md"), "# todo\n");
    const project = await atrium.api<Project>("POST", "/v1/projects", { folderPath: repo });
    const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: "Changes session" });
    const { page, problems } = await atrium.openSignedIn(DESKTOP, `/#/sessions/${session.id}`);
    const changes = page.getByRole("region", { name: "Changes" });
    await changes.getByRole("button", { name: "Show changes" }).click();
    const app = changes.locator('[data-path="app.ts"]');
    expect(await app.locator(".changed-file-name").textContent()).toBe("app.ts modified +2 −1");
    expect(await changes.locator('[data-path="notes.md"] .changed-file-name').textContent()).toBe("notes.md new +1 −0");
    await app.getByRole("button", { name: /^app\.ts/ }).click();
    const diff = app.getByRole("figure", { name: "Changes to app.ts" });
    // In the side column it is unified: numbered, the changed number marked in the old line and the new.
    await diff.locator("tr.diff-removed mark").waitFor();
    expect(await diff.locator("tr.diff-removed mark").allTextContents()).toEqual(["3000"]);
    expect(await diff.locator("tr.diff-added mark").allTextContents()).toEqual(["8080"]);
    expect(await diff.locator("tr.diff-added").allTextContents()).toEqual(["1+const port = 8080;", "3+log(port);"]);
    await diff.locator(".hljs-keyword").first().waitFor();
    await screenshot(page, "console-session-changes-desktop");
    // Where a diff has room (a question's, in the conversation's column), it is side by side.
    await send(page, "/ask");
    const question = page.getByRole("form", { name: "The agent asks" });
    const asked = question.getByRole("figure", { name: /^Changes to .*hello\.txt$/ });
    await asked.locator("td.diff-added").waitFor();
    expect(await asked.locator("td.diff-added").allTextContents()).toEqual(["Hello from the echo agent."]);
    expect(await asked.locator("td.diff-empty").count()).toBe(1);
    await question.getByRole("button", { name: "Deny Reject" }).click();
    await question.waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: a reload in the middle of a reply shows all of it; queued prompts are edited and dropped; cancel ends the turn", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/sessions");
    const sessionId = await newSession(page, "Desktop session");
    await send(page, "/usage");
    await lastReply(page).getByText("Usage reported.").waitFor();
    await page.getByRole("region", { name: "Usage" }).getByText("0.01 USD").waitFor();
    await screenshot(page, "console-session-desktop");
    await send(page, "/long 1000000");
    await lastReply(page)
      .locator(".message-text")
      .getByText(/chunk 1000 /)
      .waitFor();
    await page.reload();
    // After the reload the reply goes on growing from where the page read it, with nothing missed.
    const reply = lastReply(page);
    await reply.and(page.locator("[data-generating]")).waitFor();
    const before = (await reply.locator(".message-text").textContent())!.length;
    await until(
      () => reply.locator(".message-text").textContent(),
      (text) => text!.length > before,
    );

    // The reply grows above the composer and the queue and the page follows it, so they drift by a
    // fraction of a pixel from one frame to the next: Playwright's wait for a still element may never
    // end. The buttons are tapped where they are, as a person does.
    const tap = { force: true } as const;
    await send(page, "first queued", tap);
    await send(page, "second queued", tap);
    const queue = page.getByRole("region", { name: "Queued prompts" });
    await queue.locator("li").nth(1).waitFor();
    await queue.locator("li").first().getByRole("button", { name: "Edit" }).click(tap);
    await queue.getByLabel("Queued prompt").fill("first, edited");
    await queue.getByRole("button", { name: "Save" }).click(tap);
    await queue.getByText("first, edited").waitFor();
    await queue.locator("li").nth(1).getByRole("button", { name: "Drop" }).click(tap);
    await queue.getByText("second queued").waitFor({ state: "detached" });

    // The reader scrolls up to the header's button, as a person does: that stops the page following the
    // reply (a click that only scrolled it into view raced the follow while the reply grew).
    await page.mouse.wheel(0, -1_000_000);
    await page.getByRole("button", { name: "Cancel turn" }).click();
    await page.locator(".message.user").getByText("first, edited").waitFor();
    await lastReply(page).and(page.locator(":not([data-generating])")).waitFor();
    const stored = await atrium.api<SessionDetail>("GET", `/v1/sessions/${sessionId}`);
    const long = stored.conversation.find((item) => item.role === "assistant" && item.stopReason === "cancelled")!;
    expect(long.text).toStartWith(longReply(1000));
    // A long reply is drawn a frame's budget at a time (markdown-text.tsx, `data-drawing` while behind):
    // its last part may still be drawing when the next turn has ended. It must then become whole.
    const shown = await until(
      () => page.locator(`[data-item="${long.id}"] .message-text`).textContent(),
      (text) => text === long.text,
    ).catch(() => page.locator(`[data-item="${long.id}"] .message-text`).textContent());
    expect(shown).toBe(long.text);
    expect(await page.getByText("second queued").count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("the server killed in the middle of a reply: the stream opens again with Last-Event-ID and the page misses nothing", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/sessions");
    const sessionId = await newSession(page, "Dropped session");
    const resumedFrom: string[] = [];
    page.on("request", (request) => {
      const lastEventId = request.headers()["last-event-id"];
      if (request.url().includes(`sessionId=${sessionId}`) && lastEventId) resumedFrom.push(lastEventId);
    });
    await send(page, "/long 1000000");
    await lastReply(page)
      .locator(".message-text")
      .getByText(/chunk 1000 /)
      .waitFor();
    await atrium.crashAndRestart();
    // After the restart the reply is marked interrupted; the page learns it only through the resumed stream.
    await lastReply(page).getByText("Interrupted by a server restart").waitFor();
    expect(resumedFrom.length).toBeGreaterThan(0);
    const stored = await atrium.api<SessionDetail>("GET", `/v1/sessions/${sessionId}`);
    const reply = stored.conversation.at(-1)!;
    expect(reply.stopReason).toBe("interrupted");
    expect(words(await lastReply(page).locator(".message-text").textContent())).toBe(words(reply.text));
    // The streams cut by the crash, and the tries while the server was down, are all Chromium reports;
    // besides them, a 409 when the page had shown deltas the crash took before they were stored (at most
    // the reply's last second): the console then reads the session again, as the text above shows.
    // Chromium's own words for the service worker's script fetched (at its registration) while the server was down.
    const reported = problems.filter(
      (problem) => !/net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)|^An unknown error occurred when fetching the script\.$/.test(problem),
    );
    expect(reported.filter((problem) => problem !== refusedRequest("409 (Conflict)"))).toEqual([]);
    await page.context().close();
  });

  test("the list: latest activity first, each row naming its project, live standing and unread markers from another client's prompt", async () => {
    const other = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Other project" });
    const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: other.id, harnessId: "echo", title: "Started elsewhere" });
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/sessions");
    const row = page.locator(`[data-session="${session.id}"]`);
    await row.getByText("Idle").waitFor();
    expect(await row.locator(".session-project").textContent()).toBe("Other project");
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "/long 300000" });
    await row.getByText("Working").waitFor();
    await atrium.api("POST", `/v1/sessions/${session.id}/cancel`);
    await row.getByText("1 unread").waitFor();
    await row.getByText("Idle").waitFor();
    const inDemo = page.locator(".session-row").filter({ has: page.locator(".session-project", { hasText: /^Demo$/ }) });
    expect(await inDemo.count()).toBe(4);
    // The session with the latest activity comes first.
    expect(await page.locator(".session-row").first().getAttribute("data-session")).toBe(session.id);
    await screenshot(page, "console-sessions-phone");
    await row.click();
    await page.getByRole("heading", { name: "Started elsewhere" }).waitFor();
    await page.getByRole("link", { name: "← Sessions" }).click();
    await row.waitFor();
    await row.getByText("unread").waitFor({ state: "detached" });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

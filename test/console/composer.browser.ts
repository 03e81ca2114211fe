import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Schedule } from "../../src/schemas/schedules.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, keptForOffline, PHONE, screenshot, startScriptedConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The composer on a phone (390×844, a touch screen), with the scripted agent, which says what each prompt
// brought it: its slash commands suggested after `/` (and kept live), a file of the folder attached after
// `@`, prompts sent offline kept on the device through a reload and sent once each, in order, when the
// network is back; dictation where the browser has speech recognition (faked here: the test installs it),
// no button where it has none; a schedule made and deleted in the Schedules tab.
let atrium: ConsoleUnderTest;
let project: Project;
/** The project's folder (`project/`) and the agent's script and state, removed as one. */
const dir = makeTempDir("atrium-composer-");
const folder = join(dir.path, "project");

const COMMANDS = [
  { name: "compact", description: "Compact the conversation so far" },
  { name: "review", description: "Review a pull request", input: { hint: "PR number" } },
  { name: "init", description: "Write a CLAUDE.md for the project" },
];

beforeAll(async () => {
  mkdirSync(join(folder, "src"), { recursive: true });
  writeFileSync(join(folder, "src", "app.ts"), "export const answer = 42;\n");
  writeFileSync(join(folder, "README.md"), "# Demo\n");
  atrium = await startScriptedConsole(dir.path, {
    availableCommands: COMMANDS,
    prompts: {
      "learn a skill": [{ commands: [...COMMANDS, { name: "deploy", description: "Deploy the app (a skill learned)" }] }, { chunk: "Learned." }],
      "*": [{ describePrompt: true }],
    },
  });
  project = await atrium.api<Project>("POST", "/v1/projects", { folderPath: folder, name: "Demo" });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  dir.remove();
});

const prompt = (page: Page) => page.getByLabel("Prompt", { exact: true });
const lastReply = (page: Page) => page.locator(".message.assistant").last();
const userTexts = async (sessionId: string) =>
  (await atrium.api<SessionDetail>("GET", `/v1/sessions/${sessionId}?limit=200`)).conversation.filter((item) => item.role === "user").map((item) => item.text);

/** A session whose agent has started (so it has listed its commands), opened on a phone. */
async function openSession(title: string, init?: string): Promise<{ page: Page; problems: string[]; session: Session }> {
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted", title });
  await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "hello" });
  await until(
    () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
    (detail) => detail.availableCommands.length > 0 && detail.conversation.at(-1)?.isGenerating === false,
  );
  const context = await (await atrium.open(PHONE, "/", true)).page.context();
  await context.pages()[0]!.close();
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(atrium.serve.url);
  await page.evaluate((token: string) => localStorage.setItem("atrium.token", token), atrium.adminToken());
  await page.goto(`${atrium.serve.url}/#/sessions/${session.id}`);
  await page.reload();
  await page.getByRole("heading", { name: title }).waitFor();
  return { page, problems, session };
}

describe("the composer on a phone", () => {
  test("/ suggests the agent's commands with their hints, by touch and by keys; the chosen one reaches the agent; a new list shows live", async () => {
    const { page, problems, session } = await openSession("Commands");
    await prompt(page).tap();
    await page.keyboard.type("/");
    const list = page.getByRole("listbox", { name: "The agent's commands" });
    await list.waitFor();
    expect(await list.getByRole("option").allInnerTexts()).toEqual([
      expect.stringMatching(/^\/compact\s+Compact the conversation so far$/),
      expect.stringMatching(/^\/review\s+Review a pull request \(PR number\)$/),
      expect.stringMatching(/^\/init\s+Write a CLAUDE.md for the project$/),
    ]);
    for (const option of await list.getByRole("option").all()) expect((await option.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await prompt(page).getAttribute("aria-activedescendant")).toBe("composer-suggestion-0");
    await screenshot(page, "composer-commands-phone");

    // Typing filters; a tap chooses, the hint shows, and the text stays where the thumb was.
    await page.keyboard.type("re");
    expect(await list.getByRole("option").allInnerTexts()).toEqual([expect.stringContaining("/review")]);
    await list.getByRole("option").first().tap();
    expect(await prompt(page).inputValue()).toBe("/review ");
    await page.getByText("/review: PR number").waitFor();
    expect(await list.count()).toBe(0);
    await screenshot(page, "composer-command-hint-phone");
    await page.keyboard.type("12");
    await page.getByRole("button", { name: "Send" }).tap();
    await lastReply(page).getByText("text:/review 12").waitFor();

    // By keys: down to the second, Enter takes it; Escape closes the list.
    await prompt(page).fill("");
    await page.keyboard.type("/");
    await page.keyboard.press("ArrowDown");
    expect(await prompt(page).getAttribute("aria-activedescendant")).toBe("composer-suggestion-1");
    await page.keyboard.press("Enter");
    expect(await prompt(page).inputValue()).toBe("/review ");
    await prompt(page).fill("/");
    await list.waitFor();
    await page.keyboard.press("Escape");
    await list.waitFor({ state: "detached" });

    // The agent lists a new command: the list has it without a reload.
    await prompt(page).fill("learn a skill");
    await page.getByRole("button", { name: "Send" }).tap();
    await lastReply(page).getByText("Learned.").waitFor();
    await prompt(page).fill("/de");
    await list.getByRole("option", { name: /\/deploy/ }).waitFor();
    expect(await userTexts(session.id)).toEqual(["hello", "/review 12", "learn a skill"]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("@ suggests the folder's files; the chosen one goes with the prompt and the agent reads it", async () => {
    const { page, problems } = await openSession("Mentions");
    await prompt(page).tap();
    await page.keyboard.type("explain @");
    const list = page.getByRole("listbox", { name: "Files" });
    await page.locator(".suggestion-note").getByText("Type part of a file's name.").waitFor();
    await page.keyboard.type("app");
    await list.getByRole("option", { name: "src/app.ts" }).waitFor();
    await screenshot(page, "composer-mention-phone");
    await list.getByRole("option", { name: "src/app.ts" }).tap();
    expect(await prompt(page).inputValue()).toBe("explain @src/app.ts ");
    await page.keyboard.type("please");
    await page.getByRole("button", { name: "Send" }).tap();
    await lastReply(page).getByText("link:app.ts").waitFor();
    expect(await lastReply(page).innerText()).toContain("text:explain @src/app.ts please|link:app.ts:undefined:26:export const answer = 42;");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("prompts sent offline wait on the device through a reload and reach the server once each, in order, once online", async () => {
    const { page, session } = await openSession("Offline");
    // The shell and the session are kept once the service worker runs: the page reloads without the network.
    await keptForOffline(page, [`/v1/sessions/${session.id}`]);
    await page.context().setOffline(true);
    const sent = ["first offline", "second offline", "third offline"];
    for (const text of sent) {
      await prompt(page).fill(text);
      await page.getByRole("button", { name: "Send" }).tap();
      await prompt(page).and(page.locator(":placeholder-shown")).waitFor();
    }
    const waiting = page.getByRole("region", { name: "Waiting to send" });
    await until(
      () => waiting.locator(".queued-text").allInnerTexts(),
      (texts) => texts.length === 3,
    );
    expect(await waiting.locator(".queued-text").allInnerTexts()).toEqual(sent);
    await screenshot(page, "composer-outbox-phone");

    await page.reload();
    await page.getByRole("heading", { name: "Offline" }).waitFor();
    expect(await waiting.locator(".queued-text").allInnerTexts()).toEqual(sent);
    expect(await userTexts(session.id)).toEqual(["hello"]);

    await page.context().setOffline(false);
    await waiting.waitFor({ state: "detached", timeout: 15_000 });
    await until(
      () => userTexts(session.id),
      (texts) => texts.length === 4,
    );
    expect(await userTexts(session.id)).toEqual(["hello", ...sent]);
    await page.context().close();
  });

  test("a prompt the user cancels while it waits is never sent", async () => {
    const { page, session } = await openSession("Cancelled");
    await page.context().setOffline(true);
    await prompt(page).fill("never mind");
    await page.getByRole("button", { name: "Send" }).tap();
    const waiting = page.getByRole("region", { name: "Waiting to send" });
    await waiting.getByText("never mind").waitFor();
    await waiting.getByRole("button", { name: "Cancel" }).tap();
    await waiting.waitFor({ state: "detached" });
    await page.context().setOffline(false);
    // Then a prompt sent online goes, and it alone.
    await prompt(page).fill("this one");
    await page.getByRole("button", { name: "Send" }).tap();
    await lastReply(page).getByText("text:this one").waitFor();
    expect(await userTexts(session.id)).toEqual(["hello", "this one"]);
    await page.context().close();
  });

  test("no dictation button without speech recognition; with it (faked), dictated words fill the composer, editable, then sent", async () => {
    const absent = await openSession("No voice", "delete window.SpeechRecognition; delete window.webkitSpeechRecognition;");
    await prompt(absent.page).waitFor();
    expect(await absent.page.getByRole("button", { name: "Dictate" }).count()).toBe(0);
    await absent.page.context().close();

    // The browser's API as the test fakes it: started, it hears two phrases, then stops.
    const fake = `window.SpeechRecognition = class {
      start() {
        const said = (transcript) => ({ resultIndex: 0, results: [Object.assign([{ transcript }], { isFinal: true })] });
        setTimeout(() => { this.onresult(said("run the tests")); this.onresult(said(" and fix them")); this.onend(); }, 50);
      }
      stop() { this.onend(); }
    };`;
    const { page, problems } = await openSession("Voice", fake);
    await prompt(page).fill("please");
    const dictate = page.getByRole("button", { name: "Dictate" });
    expect((await dictate.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await dictate.tap();
    await until(
      () => prompt(page).inputValue(),
      (text) => text === "please run the tests and fix them",
    );
    await screenshot(page, "composer-dictation-phone");
    await prompt(page).press("End");
    await page.keyboard.type(" now");
    await page.getByRole("button", { name: "Send" }).tap();
    await lastReply(page).getByText("text:please run the tests and fix them now").waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("a schedule made in the Schedules tab is listed with its next run, and deleted", async () => {
    const { page, problems, session } = await openSession("Scheduled");
    await page.getByRole("tab", { name: "Schedules" }).tap();
    const panel = page.getByRole("region", { name: "Schedules" });
    await panel.getByText("No scheduled prompts.").waitFor();
    const form = panel.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Prompt to send").fill("summarise the night's CI runs");
    await form.getByRole("combobox", { name: /^When/ }).selectOption("cron");
    await form.getByLabel(/^Cron/).fill("0 9 * * mon-fri");
    // The time zone is the browser's unless changed.
    expect(await form.getByLabel("Time zone").inputValue()).toBe(await page.evaluate<string>("Intl.DateTimeFormat().resolvedOptions().timeZone"));
    await form.getByLabel("Time zone").fill("Europe/Paris");
    await form.getByRole("combobox", { name: /^A run missed/ }).selectOption("skip");
    await form.getByRole("button", { name: "Schedule" }).tap();
    const row = panel.getByRole("list", { name: "Scheduled prompts" }).getByRole("listitem");
    await row.getByText("summarise the night's CI runs").waitFor();
    const [stored] = await atrium.api<Schedule[]>("GET", `/v1/sessions/${session.id}/schedules`);
    expect(stored).toMatchObject({ text: "summarise the night's CI runs", cron: "0 9 * * mon-fri", timezone: "Europe/Paris", missed: "skip" });
    expect(await row.innerText()).toContain(`Next run: ${await page.evaluate<string>(`new Date(${JSON.stringify(stored!.nextRunAt)}).toLocaleString()`)}`);
    expect(await row.innerText()).toContain("Cron 0 9 * * mon-fri (Europe/Paris)");
    await screenshot(page, "composer-schedules-phone");

    // One made elsewhere shows live; deleting one here takes it away.
    await atrium.api("POST", `/v1/sessions/${session.id}/schedules`, { text: "from the API", at: new Date(Date.now() + 3_600_000).toISOString() });
    await row.getByText("from the API").waitFor();
    await row.filter({ hasText: "summarise" }).getByRole("button", { name: "Delete" }).tap();
    await row.filter({ hasText: "summarise" }).waitFor({ state: "detached" });
    expect((await atrium.api<Schedule[]>("GET", `/v1/sessions/${session.id}/schedules`)).map((schedule) => schedule.text)).toEqual(["from the API"]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

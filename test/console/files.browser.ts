import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, DESKTOP, overflowsSideways, PHONE, refusedRequest, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { SCRIPTED_AGENT } from "../sessions/session-helpers.ts";

// A project's files in the console on a phone (390×844, a touch screen): a folder opened, a file shown
// coloured with line numbers, a line typed into the editor (CodeMirror, loaded only then) and saved to disk, a save refused because the file changed on
// disk meanwhile and kept ("Keep mine"), a change through the Files routes shown live (and, with an edit
// open, said, then taken: "Take theirs"), a file found by part of its name. On a desktop: a content search
// opens the file at its line, an image and a binary file; a plain textarea edits when the editor's script
// cannot be loaded. A session's file mentioned in its prompt, and a
// session's open file read again once its agent's command has written it.
let atrium: ConsoleUnderTest;
let project: Project;
const folder = makeTempDir("atrium-files-console-");
const agentDir = makeTempDir("atrium-files-agent-");
const APP = join(folder.path, "src", "app.ts");
const TODO = join(folder.path, "docs", "todo.md");
const APP_TEXT = [
  "export function greet(name: string): string {",
  "  return 'Hello, ' + name;",
  "}",
  `export const LONG = "${"a long line that goes on ".repeat(12)}";`,
  "",
].join("\n");
/** The smallest PNG: one transparent pixel. */
const PIXEL_PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  mkdirSync(join(folder.path, "src", "util"), { recursive: true });
  mkdirSync(join(folder.path, "docs"));
  writeFileSync(APP, APP_TEXT);
  writeFileSync(join(folder.path, "src", "util", "deep-thought.ts"), "export const answer = 42;\n");
  writeFileSync(
    join(folder.path, "README.md"),
    `# Demo\n\n${Array.from({ length: 60 }, (_, index) => `Line ${index + 3}.`).join("\n")}\nThe needle is here.\n`,
  );
  writeFileSync(join(folder.path, "docs", "pixel.png"), PIXEL_PNG);
  writeFileSync(TODO, "- one\n");
  writeFileSync(join(folder.path, "data.bin"), Buffer.from([0, 1, 2, 3, 0, 255]));
  const scriptFile = join(agentDir.path, "script.json");
  // Its command writes a file of the project through a shell, as an agent's tools do: no Files route, no files.changed.
  const write = { terminal: { command: "sh", args: ["-c", "printf 'The agent was here.\\n' > notes.txt"], wait: true } };
  writeFileSync(
    scriptFile,
    JSON.stringify({ prompts: { write: [write, { toolCall: { id: "noted", title: "notes.txt", kind: "edit" } }, { chunk: "Noted." }] } }),
  );
  writeFileSync(join(folder.path, "notes.txt"), "Nothing yet.\n");
  atrium = await startConsole(
    { SCRIPTED_AGENT_SCRIPT: scriptFile, SCRIPTED_AGENT_STATE: join(agentDir.path, "state"), SCRIPTED_AGENT_BUN: process.execPath },
    { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  );
  project = await atrium.api<Project>("POST", "/v1/projects", { folderPath: folder.path, name: "Demo" });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  folder.remove();
  agentDir.remove();
});

/** axe-core's serious and critical violations on the page as it is (as test/console/manage.browser.ts asks). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  return page.evaluate<string[]>(
    `axe.run(document).then((result) => result.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => violation.id + ": " + violation.nodes.map((node) => node.target.join(" ")).join(", ")))`,
  );
}

const heading = (page: Page, name: string) => page.getByRole("heading", { name, exact: true, level: 2 });
const shownText = (page: Page) => page.locator(".file-text").innerText();

test("on a phone: open a folder and a file, edit a line and save it, keep mine over a change on disk, take theirs over one made while editing, quick-open by name", async () => {
  const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects", true);
  const editorLoads: string[] = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/code-editor.js")) editorLoads.push(request.url());
  });
  const card = page.locator(`[data-project="${project.id}"]`);
  await card.waitFor();
  await screenshot(page, "files-project-card-phone");
  await card.getByRole("link", { name: "Files" }).tap();
  await heading(page, "Files · Demo").waitFor();
  // Folders first, then files, each a thumb's size.
  const entries = page.getByRole("list", { name: "Files and folders" }).getByRole("link");
  await entries.first().waitFor();
  expect(await entries.allInnerTexts()).toEqual([
    expect.stringContaining("docs"),
    expect.stringContaining("src"),
    expect.stringContaining("README.md"),
    expect.stringContaining("data.bin"),
    expect.stringContaining("notes.txt"),
  ]);
  for (const entry of await entries.all()) expect((await entry.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await screenshot(page, "files-folder-phone");
  expect(await seriousViolations(page)).toEqual([]);

  await entries.filter({ hasText: "src" }).tap();
  await heading(page, "src").waitFor();
  // The heading took the focus, so a screen reader says where the tap landed.
  await until(
    () => page.evaluate<string | undefined>("document.activeElement?.textContent"),
    (focused) => focused === "src",
  );
  await page.getByRole("link", { name: /^app\.ts/ }).tap();
  await heading(page, "app.ts").waitFor();
  // Coloured by the lazily loaded highlighter, each line numbered; the long line scrolls inside the box.
  await page.locator(".file-text .hljs-keyword").first().waitFor();
  expect(await page.locator('.file-line[data-line="2"] .line-number').innerText()).toBe("2");
  expect(await page.locator(".file-line").count()).toBe(4);
  expect(await overflowsSideways(page)).toBe(false);
  await screenshot(page, "files-file-phone");
  expect(await seriousViolations(page)).toEqual([]);

  // Type a line into the editor and save: the disk has it. The editor's script is asked for only now, and
  // the editor (CodeMirror's contenteditable, named for screen readers) has the focus.
  expect(editorLoads).toEqual([]);
  await page.getByRole("button", { name: "Edit" }).tap();
  const editor = page.getByRole("textbox", { name: "Text of src/app.ts" });
  await editor.and(page.locator(".cm-content")).waitFor();
  expect(editorLoads).toHaveLength(1);
  await until(
    () => page.evaluate<boolean>("document.activeElement?.classList.contains('cm-content') ?? false"),
    (focused) => focused,
  );
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("export const typed = true;\n");
  const edited = `${APP_TEXT}export const typed = true;\n`;
  for (const control of await page.locator(".file-editor .file-actions button").all()) expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  expect(await overflowsSideways(page)).toBe(false);
  await screenshot(page, "files-editor-phone");
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Save" }).tap();
  await page.getByRole("button", { name: "Edit" }).waitFor();
  expect(readFileSync(APP, "utf8")).toBe(edited);
  // The focus goes back to Edit, and the save is said to a screen reader.
  expect(await page.evaluate<string | undefined>("document.activeElement?.textContent")).toBe("Edit");
  expect(await page.getByRole("status").filter({ hasText: "Saved." }).count()).toBe(1);
  expect(await shownText(page)).toContain("typed = true");

  // Changed on disk after it was opened (an agent wrote it, no event): the save is refused and both are shown.
  await page.getByRole("button", { name: "Edit" }).tap();
  const mine = edited.replace("Hello", "Mine says hi");
  await editor.fill(mine);
  const theirs = edited.replace("Hello", "Theirs says hi");
  writeFileSync(APP, theirs);
  await page.getByRole("button", { name: "Save" }).tap();
  await page.getByRole("heading", { name: "Changed on disk since you opened it" }).waitFor();
  const conflict = page.locator(".file-conflict");
  expect(await conflict.innerText()).toContain("Theirs says hi");
  expect(await conflict.innerText()).toContain("Mine says hi");
  expect(await overflowsSideways(page)).toBe(false);
  await screenshot(page, "files-conflict-phone");
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Keep mine" }).tap();
  await page.getByRole("button", { name: "Edit" }).waitFor();
  expect(readFileSync(APP, "utf8")).toBe(mine);

  // A change through the Files routes (another client, an agent's tool) shows at once.
  const response = await fetch(`${atrium.serve.url}/v1/projects/${project.id}/files/content?path=src/app.ts`, {
    method: "PUT",
    headers: { authorization: `Bearer ${atrium.adminToken()}`, "if-match": "*" },
    body: "export const changed = true;\n",
  });
  expect(response.status).toBe(200);
  await until(
    () => shownText(page),
    (text) => text.includes("changed = true"),
  );

  // An editor with unsaved changes is not overwritten by such a change: it says so, and a save then offers theirs.
  await page.getByRole("button", { name: "Edit" }).tap();
  await editor.fill("export const mine = 1;\n");
  const second = await fetch(`${atrium.serve.url}/v1/projects/${project.id}/files/content?path=src/app.ts`, {
    method: "PUT",
    headers: { authorization: `Bearer ${atrium.adminToken()}`, "if-match": "*" },
    body: "export const theirs = 2;\n",
  });
  expect(second.status).toBe(200);
  await page.getByText("This file changed on disk since you opened it.", { exact: false }).waitFor();
  expect(await editor.innerText()).toStartWith("export const mine = 1;");
  expect(await editor.innerText()).not.toContain("theirs");
  await page.getByRole("button", { name: "Save" }).tap();
  await page.getByRole("button", { name: "Take theirs" }).tap();
  await until(
    () => shownText(page),
    (text) => text.includes("theirs = 2"),
  );
  expect(readFileSync(APP, "utf8")).toBe("export const theirs = 2;\n");

  // Quick open: part of a name finds the file; tapping it opens it.
  await page.getByRole("searchbox", { name: "Go to file" }).fill("deepth");
  const hit = page.getByRole("link", { name: /src\/util\/deep-thought\.ts/ });
  await hit.waitFor();
  await screenshot(page, "files-quick-open-phone");
  await hit.tap();
  await heading(page, "deep-thought.ts").waitFor();
  expect(await shownText(page)).toContain("answer = 42");
  // The path leads back up.
  await page.getByRole("navigation", { name: "Path" }).getByRole("link", { name: "Demo" }).tap();
  await heading(page, "Files · Demo").waitFor();
  // Loaded once for all the edits of the page.
  expect(editorLoads).toHaveLength(1);
  // The refusals Chromium logs are the two saves the changes refused.
  expect(problems).toEqual([refusedRequest("412 (Precondition Failed)"), refusedRequest("412 (Precondition Failed)")]);
}, 120_000);

test("on a desktop: a content search opens the file at its line; an image is shown and a binary file named", async () => {
  const { page, problems } = await atrium.openSignedIn(DESKTOP, `/#/projects/${project.id}/files`);
  await heading(page, "Files · Demo").waitFor();
  await page.getByRole("searchbox", { name: "Search in files" }).fill("needle");
  const hit = page.getByRole("link", { name: /README\.md:63/ });
  await hit.waitFor();
  expect(await hit.innerText()).toContain("The needle is here.");
  await hit.click();
  await heading(page, "README.md").waitFor();
  const target = page.locator(".file-line.target");
  await target.waitFor();
  expect(await target.getAttribute("data-line")).toBe("63");
  expect(await target.isVisible()).toBe(true);
  await until(
    () => target.boundingBox(),
    (box) => box !== null && box.y >= 0 && box.y + box.height <= DESKTOP.height,
  );

  await page.goto(`${atrium.serve.url}/#/projects/${project.id}/files/file/${encodeURIComponent("docs/pixel.png")}`);
  const image = page.getByRole("img", { name: "docs/pixel.png" });
  await image.waitFor();
  expect(await image.getAttribute("src")).toStartWith("data:image/png;base64,");
  expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);

  await page.goto(`${atrium.serve.url}/#/projects/${project.id}/files/file/data.bin`);
  await page.getByText("A binary file (6 bytes): not shown.").waitFor();
  expect(await page.getByRole("button", { name: "Edit" }).count()).toBe(0);
  expect(problems).toEqual([]);
}, 60_000);

test("when the editor's script cannot be loaded, a plain textarea edits the file", async () => {
  const { page, problems } = await atrium.openSignedIn(DESKTOP, `/#/projects/${project.id}/files/file/${encodeURIComponent("docs/todo.md")}`);
  await page.route("**/code-editor.js", (route) => route.fulfill({ status: 404 }));
  await page.getByRole("button", { name: "Edit" }).click();
  const editor = page.getByRole("textbox", { name: "Text of docs/todo.md" });
  await editor.and(page.locator("textarea")).waitFor();
  await editor.fill("- one\n- two\n");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("button", { name: "Edit" }).waitFor();
  expect(readFileSync(TODO, "utf8")).toBe("- one\n- two\n");
  expect(problems).toEqual([refusedRequest("404 (Not Found)")]);
}, 60_000);

test("on a phone: a session's file is mentioned in its prompt", async () => {
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: "Tidy up" });
  const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`, true);
  const header = page.locator(".session-header");
  await header.getByRole("link", { name: "Files" }).waitFor();
  await screenshot(page, "files-session-header-phone");
  await header.getByRole("link", { name: "Files" }).tap();
  await heading(page, "Files · Tidy up").waitFor();
  await page.getByRole("link", { name: /^README\.md/ }).tap();
  await heading(page, "README.md").waitFor();
  await page.locator(".file-text").waitFor();
  await screenshot(page, "files-session-file-phone");
  await page.getByRole("button", { name: "Mention in prompt" }).tap();
  await heading(page, "Tidy up").waitFor();
  expect(await page.getByLabel("Prompt", { exact: true }).inputValue()).toBe("@README.md");
  expect(problems).toEqual([]);
}, 60_000);

test("an open file is read again once an agent's tool call has written it: in its session's view and in its project's", async () => {
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted", title: "Take notes" });
  // The session works in the project's folder: the project's view follows its tool calls too.
  const views = await Promise.all(
    [`/#/sessions/${session.id}/files/file/notes.txt`, `/#/projects/${project.id}/files/file/notes.txt`].map((path) => atrium.openSignedIn(DESKTOP, path)),
  );
  for (const { page } of views) {
    await heading(page, "notes.txt").waitFor();
    await until(
      () => shownText(page),
      (text) => text.includes("Nothing yet."),
    );
  }
  await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "write" });
  for (const { page } of views) {
    await until(
      () => shownText(page),
      (text) => text.includes("The agent was here."),
      20_000,
    );
  }
  expect(readFileSync(join(folder.path, "notes.txt"), "utf8")).toBe("The agent was here.\n");
  expect(views.flatMap(({ problems }) => problems)).toEqual([]);
}, 60_000);

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { Project, Worktree } from "../../src/schemas/projects.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole, overflowsSideways, refusedRequest } from "../helpers/console-browser.ts";
import { type BareRepo, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The console's Projects page against the compiled server, with real git repositories: local bare ones
// stand in for remotes.
let atrium: ConsoleUnderTest;
let server: ApiClient;
let fixtures: ReturnType<typeof makeTempDir>;
/** Big enough that its clone, slowed down, runs for seconds. */
let alpha: BareRepo;
let beta: BareRepo;

/**
 * A global git config for the server whose upload-pack hands the pack on a kilobyte at a time, so that a
 * local clone runs long enough for git to report progress the server passes on (it reports only after
 * the first second). The hook is honoured only from protected config, which the global file is.
 */
function slowUploadConfig(root: string): string {
  const hook = join(root, "slow-pack.js");
  writeFileSync(
    hook,
    `const packer = Bun.spawn(process.argv.slice(2), { stdin: "inherit", stdout: "pipe", stderr: "inherit" });
const out = Bun.stdout.writer();
for await (const chunk of packer.stdout) {
  for (let at = 0; at < chunk.length; at += 1024) {
    out.write(chunk.subarray(at, at + 1024));
    await out.flush();
    await Bun.sleep(150);
  }
}
await out.end();
process.exit(await packer.exited);
`,
  );
  const config = join(root, "gitconfig");
  writeFileSync(config, `[uploadpack]\n\tpackObjectsHook = ${process.execPath} ${hook}\n`);
  return config;
}

beforeAll(async () => {
  fixtures = makeTempDir("atrium-console-projects-");
  alpha = makeBareRepo(fixtures.path, "alpha", 300);
  beta = makeBareRepo(fixtures.path, "beta");
  atrium = await startConsole({ GIT_CONFIG_GLOBAL: slowUploadConfig(fixtures.path) });
  server = apiClient(atrium.serve.url, atrium.adminToken());
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  fixtures?.remove();
});

const listed = async () => (await server.json<Project[]>("GET", "/v1/projects")).body;
const card = (page: Page, name: string): Locator => page.locator("[data-project]").filter({ has: page.getByRole("heading", { name, exact: true }) });

/** Whether the page is wider than its viewport (a phone would have to scroll sideways). */

describe("the console's Projects page", () => {
  test("on a phone: a clone shows git's progress, then the project with its repoUrl; a bad URL is the server's sentence and adds nothing", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects");
    await page.getByText("No projects yet").waitFor();

    await page.getByRole("button", { name: "Clone a repository" }).click();
    const cloneForm = page.getByRole("form", { name: "Clone a repository" });
    await cloneForm.getByLabel("Repository URL").fill(alpha.url);
    await cloneForm.getByRole("button", { name: "Clone" }).click();
    const cloning = cloneForm.getByRole("button", { name: "Cloning…" });
    await cloning.waitFor();
    expect(await cloning.isDisabled()).toBe(true);
    // A phase and a percentage from git, on the text and the bar.
    const status = cloneForm.getByRole("status");
    await status.filter({ hasText: /^[A-Za-z ]+: \d{1,3}%$/ }).waitFor();
    // position is -1 while the bar is indeterminate, before git has said how far it is.
    const bar = cloneForm.getByRole("progressbar", { name: "Clone progress" });
    expect(await bar.evaluate((element) => (element as unknown as { position: number }).position)).toBeGreaterThanOrEqual(0);

    const cloned = card(page, "alpha");
    await cloned.waitFor();
    await cloned.getByText(alpha.url, { exact: true }).waitFor();
    await cloned.getByText("Worktrees from origin/main").waitFor();
    expect(await cloneForm.isHidden()).toBe(true);
    const [project] = await listed();
    expect(project).toMatchObject({ name: "alpha", repoUrl: alpha.url, isScratch: false });
    await cloned.getByText(project!.locations[0]!.folderPath, { exact: true }).waitFor();

    await page.getByRole("button", { name: "Clone a repository" }).click();
    const missing = join(fixtures.path, "no-such-repo.git");
    await cloneForm.getByLabel("Repository URL").fill(missing);
    await cloneForm.getByRole("button", { name: "Clone" }).click();
    const refusal = cloneForm.getByRole("alert");
    await refusal.waitFor();
    const sentence = (await server.json<{ error: string }>("POST", "/v1/projects/from-git", { url: missing })).body.error;
    expect(sentence).toContain(missing);
    expect(await refusal.textContent()).toBe(sentence);
    expect(await cloneForm.getByRole("button", { name: "Clone" }).isEnabled()).toBe(true);
    expect(await page.locator("[data-project]").count()).toBe(1);
    expect((await listed()).length).toBe(1);
    expect(await overflowsSideways(page)).toBe(false);

    await page.getByRole("button", { name: "Clone a repository" }).click();
    await cloneForm.waitFor({ state: "hidden" });
    await screenshot(page, "console-projects-phone");
    expect(problems).toEqual([refusedRequest("400 (Bad Request)")]);
    await page.context().close();
  });

  test("on a desktop: add a folder, rename it, add and forget a second checkout, a refused location, worktrees, delete after confirming", async () => {
    const cloned = await server.json<Project>("POST", "/v1/projects/from-git", { url: beta.url });
    expect(cloned.status).toBe(201);
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/projects");
    const betaCard = card(page, "beta");
    await betaCard.waitFor();

    const notes = join(fixtures.path, "notes");
    mkdirSync(notes);
    await page.getByRole("button", { name: "Add a folder" }).click();
    const folderForm = page.getByRole("form", { name: "Add a folder" });
    await folderForm.getByLabel("Folder path").fill(notes);
    await folderForm.getByLabel("Name (optional)").fill("Notes");
    await folderForm.getByRole("button", { name: "Add", exact: true }).click();
    const notesCard = card(page, "Notes");
    await notesCard.getByText(notes, { exact: true }).waitFor();
    await notesCard.getByText("Not a git repository").waitFor();
    expect(await notesCard.getByText("folder", { exact: true }).count()).toBe(1);

    await notesCard.getByRole("button", { name: "Rename" }).click();
    await notesCard.getByLabel("Name").fill("Notebook");
    await notesCard.getByRole("button", { name: "Save" }).click();
    const notebookCard = card(page, "Notebook");
    await notebookCard.waitFor();
    expect((await listed()).find((project) => project.locations[0]!.folderPath === notes)?.name).toBe("Notebook");

    // A folder that is already another project's location: the server's 409 sentence, in the card.
    await betaCard.getByRole("button", { name: "Add location" }).click();
    await betaCard.getByLabel("Folder path").fill(notes);
    await betaCard.getByRole("button", { name: "Add", exact: true }).click();
    await betaCard.getByRole("alert").filter({ hasText: "already a location" }).waitFor();

    const secondCheckout = makeCheckout(fixtures.path, beta.bare, "beta-second");
    await betaCard.getByLabel("Folder path").fill(secondCheckout);
    await betaCard.getByRole("button", { name: "Add", exact: true }).click();
    await betaCard.locator(".project-path", { hasText: secondCheckout }).waitFor();
    expect(await betaCard.getByRole("alert").count()).toBe(0);
    expect((await server.json<Project>("GET", `/v1/projects/${cloned.body.id}`)).body.locations.length).toBe(2);
    await betaCard.getByRole("button", { name: `Forget ${secondCheckout}` }).click();
    await betaCard.locator(".project-path", { hasText: secondCheckout }).waitFor({ state: "detached" });
    // The last location cannot be forgotten, so it offers no button.
    expect(await betaCard.getByRole("button", { name: /^Forget/ }).count()).toBe(0);
    expect(existsSync(secondCheckout)).toBe(true);

    const session = await server.json<{ id: string }>("POST", "/v1/sessions", { projectId: cloned.body.id, harnessId: "echo", runLocation: "worktree" });
    expect(session.status).toBe(201);
    const [worktree] = (await server.json<Worktree[]>("GET", `/v1/projects/${cloned.body.id}/worktrees`)).body;
    await betaCard.getByRole("button", { name: "Worktrees" }).click();
    await betaCard.getByRole("list", { name: "Worktrees" }).getByText(worktree!.branch, { exact: true }).waitFor();
    await betaCard.getByText(worktree!.path, { exact: true }).waitFor();
    // What changed in the worktree and in the location, each against its HEAD, a file's diff when opened.
    writeFileSync(join(worktree!.path, "notes.md"), "# Notes\n\nFrom the worktree.\n");
    await betaCard.getByRole("button", { name: `Changes in ${worktree!.branch}` }).click();
    const worktreeChange = betaCard.locator(".project-worktrees .changed-file[data-path='notes.md']");
    expect(await worktreeChange.locator(".change-status").textContent()).toBe("new");
    await worktreeChange.getByRole("button", { name: /^notes\.md/ }).click();
    await worktreeChange.locator("tr.diff-added").first().waitFor();
    expect(await worktreeChange.locator("tr.diff-added").allTextContents()).toEqual(["1+# Notes", "2+", "3+From the worktree."]);
    const location = (await server.json<Project>("GET", `/v1/projects/${cloned.body.id}`)).body.locations[0]!;
    writeFileSync(join(location.folderPath, "todo.txt"), "ship it\n");
    await betaCard.getByRole("button", { name: `Changes in ${location.folderPath}` }).click();
    await betaCard.locator(".project-locations .changed-file[data-path='todo.txt']").waitFor();
    expect(await betaCard.locator(".project-locations .changed-file").count()).toBe(1);
    await notebookCard.getByRole("button", { name: "Worktrees" }).click();
    await notebookCard.getByText("No worktrees").waitFor();
    await screenshot(page, "console-projects-desktop");

    await notebookCard.getByRole("button", { name: "Delete", exact: true }).click();
    await notebookCard.getByRole("button", { name: "Delete Notebook?" }).click();
    await notebookCard.waitFor({ state: "detached" });
    expect((await listed()).some((project) => project.name === "Notebook")).toBe(false);
    // A folder the user brought stays.
    expect(existsSync(notes)).toBe(true);
    expect(await overflowsSideways(page)).toBe(false);
    expect(problems).toEqual([refusedRequest("409 (Conflict)")]);
    await page.context().close();
  });

  test("changes made elsewhere appear and go without a reload; a scratch project is made in one step", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects");
    await page.locator("[data-project]").or(page.getByText("No projects yet")).first().waitFor();

    const gamma = join(fixtures.path, "gamma");
    mkdirSync(gamma);
    const made = await server.json<Project>("POST", "/v1/projects", { folderPath: gamma });
    expect(made.status).toBe(201);
    const gammaCard = card(page, "gamma");
    await gammaCard.waitFor();
    await server.json("PATCH", `/v1/projects/${made.body.id}`, { name: "Gamma ray" });
    await card(page, "Gamma ray").waitFor();
    await server.json("DELETE", `/v1/projects/${made.body.id}`);
    await card(page, "Gamma ray").waitFor({ state: "detached" });

    await page.getByRole("button", { name: "New scratch project" }).click();
    const scratchCard = card(page, "Scratch");
    await scratchCard.locator(".badge", { hasText: "Scratch" }).waitFor();
    const scratch = (await listed()).find((project) => project.isScratch);
    expect(scratch?.name).toBe("Scratch");
    await scratchCard.getByRole("button", { name: "Delete", exact: true }).click();
    await scratchCard.getByRole("button", { name: "Delete Scratch?" }).click();
    await scratchCard.waitFor({ state: "detached" });
    // A scratch folder is the server's own: it goes with the project.
    expect(existsSync(scratch!.locations[0]!.folderPath)).toBe(false);
    expect((await listed()).some((project) => project.isScratch)).toBe(false);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { SkillsListing } from "../../src/schemas/skills.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole, overflowsSideways, refusedRequest } from "../helpers/console-browser.ts";
import { git, makeBareRepo } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { focusIs } from "./focused.ts";

// The Skills page against the compiled server, with real skill folders and links in a temp HOME. The
// fixtures' fake Claude Code, Codex and Gemini CLIs on the PATH make those harnesses present (Echo's
// folder is in the data dir); a local bare repository stands in for a remote to import from.
const fixtures = join(import.meta.dir, "..", "fixtures");
let atrium: ConsoleUnderTest;
let machine: ReturnType<typeof makeTempDir>;
const home = () => join(machine.path, "home");
const skillsDir = {
  claude: () => join(home(), ".claude", "skills"),
  codex: () => join(home(), ".agents", "skills"),
  gemini: () => join(home(), ".gemini", "skills"),
};
const canonical = (name: string) => join(atrium.home.path, "skills", name);

function writeSkill(dir: string, folder: string, name: string, body = "Do the thing.") {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "SKILL.md"), `---\nname: ${name}\ndescription: What ${name} does.\n---\n\n${body}\n`);
}

/** A bare repository (the remote) whose `skills/` folder holds two skills. */
function skillsRepository(): string {
  const repo = makeBareRepo(machine.path, "team-skills");
  writeSkill(join(repo.work, "skills"), "deploy", "deploy");
  writeSkill(join(repo.work, "skills", "nested"), "lint", "lint");
  git(["add", "."], repo.work);
  git(["commit", "--quiet", "-m", "skills"], repo.work);
  git(["push", "--quiet", "origin", "HEAD:main"], repo.work);
  return `${repo.url}/tree/main/skills`;
}

beforeAll(async () => {
  machine = makeTempDir("atrium-console-skills-");
  const clis = join(machine.path, "clis");
  for (const dir of [clis, home()]) mkdirSync(dir);
  for (const name of ["claude", "codex", "gemini"]) symlinkSync(join(fixtures, "fake-clis", name), join(clis, name));
  writeSkill(skillsDir.claude(), "review", "review");
  writeSkill(skillsDir.codex(), "review", "review", "Codex's own way of reviewing.");
  writeSkill(skillsDir.gemini(), "notes", "notes");
  // Empty values: the skill folders are HOME's, whatever the machine running the test has set.
  atrium = await startConsole({ PATH: [clis, "/usr/bin", "/bin"].join(":"), HOME: home(), CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  machine?.remove();
});

const listing = () => atrium.api<SkillsListing>("GET", "/v1/skills");
const isLinkTo = (path: string, target: string) => existsSync(path) && lstatSync(path).isSymbolicLink() && readlinkSync(path) === target;
const globalCard = (page: Page, name: string): Locator => page.locator(`[data-skill="${name}"].skill-card`);
const harnessCard = (page: Page, harnessId: string): Locator => page.locator(`[data-harness-skills="${harnessId}"]`);
const install = (card: Locator, harnessName: string) => card.getByRole("listitem").filter({ hasText: harnessName });

describe("the console's Skills page", () => {
  test("on a desktop: make a skill global, unlink and install it again, import from git, a refused import, delete after confirming", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/skills");
    await page.getByText("No global skills yet").waitFor();
    const claude = harnessCard(page, "claude");
    await claude.getByText(skillsDir.claude(), { exact: true }).waitFor();
    // Each harness's review differs from the other's.
    const claudeReview = claude.locator('[data-skill="review"]');
    await claudeReview.getByText("Duplicate", { exact: true }).waitFor();
    await claudeReview.getByText("Differs from Codex's").waitFor();

    await claude.getByRole("button", { name: "Make review global" }).click();
    const review = globalCard(page, "review");
    await review.getByText("What review does.").waitFor();
    expect(isLinkTo(join(skillsDir.claude(), "review"), canonical("review"))).toBe(true);
    expect(readFileSync(join(canonical("review"), "SKILL.md"), "utf8")).toContain("Do the thing.");
    await install(review, "Codex").getByText("Has its own").waitFor();
    await install(review, "Claude Code").getByText("Linked").waitFor();
    await claudeReview.getByText("Global", { exact: true }).waitFor();
    const codexReview = harnessCard(page, "codex").locator('[data-skill="review"]');
    await codexReview.getByText("Differs from the global skill of that name").waitFor();
    // A global skill of that name exists: Codex's own cannot be made global too, so it is not offered.
    expect(await codexReview.getByRole("button").count()).toBe(0);

    // Gemini's link goes, then comes back through the install form.
    const geminiLink = join(skillsDir.gemini(), "review");
    expect(isLinkTo(geminiLink, canonical("review"))).toBe(true);
    await review.getByRole("button", { name: "Remove link from Gemini CLI" }).click();
    await review.getByRole("checkbox", { name: "Gemini CLI" }).waitFor();
    expect(existsSync(geminiLink)).toBe(false);
    expect(await review.getByRole("button", { name: "Install" }).isDisabled()).toBe(true);
    await review.getByRole("checkbox", { name: "Gemini CLI" }).check();
    await review.getByRole("button", { name: "Install" }).click();
    await install(review, "Gemini CLI").getByText("Linked").waitFor();
    expect(isLinkTo(geminiLink, canonical("review"))).toBe(true);
    expect(await review.getByRole("checkbox").count()).toBe(0);
    await harnessCard(page, "gemini").locator('[data-skill="review"]').getByText("Global", { exact: true }).waitFor();

    const source = skillsRepository();
    await page.getByRole("button", { name: "Import skills" }).click();
    const importForm = page.getByRole("form", { name: "Import skills" });
    await importForm.getByLabel("Git URL or folder").fill(source);
    await importForm.getByRole("button", { name: "Import" }).click();
    await page.getByRole("status").filter({ hasText: "Imported deploy, lint." }).waitFor();
    await globalCard(page, "lint").getByText("Not linked into any harness.").waitFor();
    await globalCard(page, "deploy").getByText("What deploy does.").waitFor();
    expect(existsSync(join(canonical("lint"), "SKILL.md"))).toBe(true);
    expect(await importForm.count()).toBe(0);

    // The same again: the server refuses it whole, and says why.
    await page.getByRole("button", { name: "Import skills" }).click();
    await importForm.getByLabel("Git URL or folder").fill(source);
    await importForm.getByRole("button", { name: "Import" }).click();
    await importForm.getByRole("alert").filter({ hasText: "global skills named deploy, lint exist already; nothing was imported" }).waitFor();
    expect(await importForm.getByRole("button", { name: "Import" }).isEnabled()).toBe(true);
    await page.getByRole("button", { name: "Import skills" }).click();
    await screenshot(page, "console-skills-desktop");

    const lint = globalCard(page, "lint");
    // The step drawn in the button's place takes the focus; Cancel and Escape give it to the button drawn again.
    await lint.getByRole("button", { name: "Delete lint" }).click();
    await focusIs(page, "button: Delete lint?");
    await lint.getByRole("button", { name: "Cancel" }).click();
    await focusIs(page, "button: Delete lint");
    await page.keyboard.press("Enter");
    await focusIs(page, "button: Delete lint?");
    await page.keyboard.press("Escape");
    await focusIs(page, "button: Delete lint");
    expect(existsSync(canonical("lint"))).toBe(true);
    await page.keyboard.press("Enter");
    await focusIs(page, "button: Delete lint?");
    await page.keyboard.press("Enter");
    await lint.waitFor({ state: "detached" });
    // The card went with the focus in it: the page's heading has it, not the page's body.
    await focusIs(page, "h2: Skills");
    expect(existsSync(canonical("lint"))).toBe(false);
    expect((await listing()).global.map((skill) => skill.name)).toEqual(["deploy", "review"]);
    expect(await overflowsSideways(page)).toBe(false);
    expect(problems).toEqual([refusedRequest("409 (Conflict)")]);
    await page.context().close();
  });

  test("on a phone: changes made elsewhere appear without a reload, folders changed on disk on asking, a refused unlink is the server's sentence", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/skills");
    const review = globalCard(page, "review");
    await review.waitFor();

    // Another client makes Gemini's notes global: the page follows skills.changed.
    await atrium.api("POST", "/v1/skills/make-global", { harnessId: "gemini", directoryName: "notes" });
    const notes = globalCard(page, "notes");
    await install(notes, "Claude Code").getByText("Linked").waitFor();
    await atrium.api("DELETE", "/v1/skills/deploy");
    await globalCard(page, "deploy").waitFor({ state: "detached" });

    // A skill dropped into a folder by hand makes no event: it shows when the folders are read again.
    writeSkill(skillsDir.codex(), "plans", "plans");
    const codex = harnessCard(page, "codex");
    expect(await codex.locator('[data-skill="plans"]').count()).toBe(0);
    await page.getByRole("button", { name: "Read folders again" }).click();
    await codex.locator('[data-skill="plans"]').getByText("Own", { exact: true }).waitFor();

    // Codex's notes link is swapped for a folder of its own behind the page's back: unlinking is refused.
    const codexNotes = join(skillsDir.codex(), "notes");
    expect(isLinkTo(codexNotes, canonical("notes"))).toBe(true);
    unlinkSync(codexNotes);
    writeSkill(skillsDir.codex(), "notes", "notes", "Codex's own notes.");
    await notes.getByRole("button", { name: "Remove link from Codex" }).click();
    await notes.getByRole("alert").filter({ hasText: "Codex's own skill, not a link to the global one" }).waitFor();
    expect(readFileSync(join(codexNotes, "SKILL.md"), "utf8")).toContain("Codex's own notes.");
    await page.getByRole("button", { name: "Read folders again" }).click();
    await install(notes, "Codex").getByText("Has its own").waitFor();

    expect(await overflowsSideways(page)).toBe(false);
    await screenshot(page, "console-skills-phone");
    expect(problems).toEqual([refusedRequest("409 (Conflict)")]);
    await page.context().close();
  });
});

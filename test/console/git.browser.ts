import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Locator } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, overflowsSideways, PHONE, refusedRequest, screenshot, startConsole } from "../helpers/console-browser.ts";
import { gateFile } from "../fixtures/scripted-agent/agent-app.ts";
import { SCRIPTED_AGENT } from "../fixtures/scripted-agent/in-process.ts";
import { installFakeGh } from "../helpers/fake-gh.ts";
import { git, makeBareRepoWith, makeCheckout } from "../helpers/git-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { focused } from "./focused.ts";

// Git from the phone (issue 39), in the console on a 390×844 touch screen against a real repository whose
// origin is a local bare one: one hunk of a file with two staged (and only it, as git sees it), a discard
// taken back with Undo, a message written from what is staged, a commit a failing hook refuses (its words shown) and one that skips it, a change
// made by another client shown without a reload, a push (its progress shown while the remote holds it) the
// bare remote then has, and a branch made
// and checked out from the panel. A session in a
// worktree of its own: its branch pushed with its upstream set, a pull request opened through a fake
// `gh` (first on the server's PATH) and its state, and Merge back refused on a conflict, then landed. A
// session's "Write the message" asks its agent (the scripted one), shows that it is writing, and keeps
// what the phone typed meanwhile, offering the agent's message beside it.
let atrium: ConsoleUnderTest;
let project: Project;
let repo: string;
let bare: string;
const dir = makeTempDir("atrium-git-console-");
const bin = join(dir.path, "bin");
/** Where the scripted agent keeps its gates. */
const agentState = join(dir.path, "agent-state");
/** The scripted agent's one-off answer to "Write the message", held at a gate until the test opens it. */
const AGENT_MESSAGE = "Explain the tool in the README\n\nSo that whoever opens the repository knows what it is for.";
const LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
const text = (lines: string[]) => `${lines.join("\n")}\n`;

beforeAll(async () => {
  ({ bare } = makeBareRepoWith(dir.path, "remote", { "app.txt": text(LINES), "README.md": "# Demo\n", "notes.txt": "notes\n" }));
  repo = makeCheckout(dir.path, bare, "repo");
  // The machine's identity, as its git configuration would give it.
  git(["config", "user.name", "Phone User"], repo);
  git(["config", "user.email", "phone@atrium.invalid"], repo);
  writeFileSync(join(repo, "app.txt"), text(["LINE 1", ...LINES.slice(1, 29), "LINE 30"]));
  writeFileSync(join(repo, "README.md"), "# Demo\n\nA line the phone throws away, then wants back.\n");
  writeFileSync(join(repo, "notes.txt"), "notes, changed by another client\n");
  const hook = join(repo, ".git", "hooks", "pre-commit");
  writeFileSync(hook, '#!/bin/sh\necho "lint: app.txt says LINE in capitals" >&2\nexit 1\n');
  chmodSync(hook, 0o755);
  mkdirSync(bin);
  installFakeGh(bin);
  const script = join(dir.path, "script.json");
  writeFileSync(
    script,
    JSON.stringify({
      closeSession: true,
      prompts: {},
      promptPrefixes: { "Write a git commit message": [{ gate: "message" }, { chunk: `\`\`\`\n${AGENT_MESSAGE}\n\`\`\`` }] },
    }),
  );
  atrium = await startConsole(
    { PATH: `${bin}:${process.env.PATH}`, SCRIPTED_AGENT_SCRIPT: script, SCRIPTED_AGENT_STATE: agentState, SCRIPTED_AGENT_BUN: process.execPath },
    { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  );
  project = await atrium.api<Project>("POST", "/v1/projects", { folderPath: repo, name: "Demo" });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  dir.remove();
});

const height = async (locator: Locator) => (await locator.boundingBox())!.height;

test("on a phone: stage one hunk of two, discard and undo, a hook's refusal, commit, a change from elsewhere, push, a branch made and left", async () => {
  const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects", true);
  const card = page.locator(`[data-project="${project.id}"]`);
  await card.getByRole("button", { name: `Changes in ${repo}` }).tap();
  const files = page.getByRole("list", { name: "Changed files" });
  await files.getByRole("button", { name: /^app\.txt/ }).waitFor();
  await page.getByText("tracks origin/main: 0 ahead, 0 behind").waitFor();
  expect(await files.locator(".changed-file").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-path")))).toEqual([
    "README.md",
    "app.txt",
    "notes.txt",
  ]);

  // The file's diff, hunk by hunk, each with its own thumb-sized buttons.
  await files.getByRole("button", { name: /^app\.txt/ }).tap();
  const hunks = page.getByRole("region", { name: /of app\.txt$/ });
  await hunks.nth(1).waitFor();
  expect(await hunks.count()).toBe(2);
  const lastHunk = page.getByRole("region", { name: "lines 27–30 of app.txt" });
  for (const button of await lastHunk.getByRole("button").all()) expect(await height(button)).toBeGreaterThanOrEqual(44);
  await screenshot(page, "console-git-hunks-phone");
  await lastHunk.getByRole("button", { name: "Stage lines 27–30 of app.txt" }).tap();
  await lastHunk.getByRole("button", { name: "Unstage lines 27–30 of app.txt" }).waitFor();
  // The focus stayed on the button tapped, its word now Unstage.
  expect(await focused(page)).toBe("button: Unstage lines 27–30 of app.txt");
  const staged = git(["diff", "--cached"], repo);
  expect(staged).toContain("+LINE 30");
  expect(staged).not.toContain("+LINE 1");
  expect(git(["diff", "--cached", "--name-only"], repo)).toBe("app.txt");
  await files.getByRole("button", { name: /^app\.txt .*partly staged$/ }).waitFor();
  expect(await page.getByRole("region", { name: "lines 1–4 of app.txt" }).getByRole("button", { name: "Stage lines 1–4 of app.txt" }).count()).toBe(1);
  await screenshot(page, "console-git-hunk-staged-phone");

  // A discard by a wrong tap, and its Undo, which has the focus.
  await files.getByRole("button", { name: "Discard README.md" }).tap();
  await page.getByRole("status").filter({ hasText: "Discarded README.md." }).waitFor();
  await until(
    () => Promise.resolve(readFileSync(join(repo, "README.md"), "utf8")),
    (now) => now === "# Demo\n",
  );
  await until(
    () => focused(page),
    (now) => now === "button: Undo the discard of README.md",
  );
  // The list, read again on the git.changed event, no longer has it.
  await files.getByRole("button", { name: /^README\.md/ }).waitFor({ state: "detached" });
  await screenshot(page, "console-git-discarded-phone");
  await page.getByRole("button", { name: "Undo the discard of README.md" }).tap();
  await page.getByRole("status").filter({ hasText: "Brought back README.md." }).waitFor();
  expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# Demo\n\nA line the phone throws away, then wants back.\n");
  await files.getByRole("button", { name: /^README\.md/ }).waitFor();

  // Another client stages a file: the panel shows it from the git.changed event, without a reload.
  await atrium.api("POST", `/v1/projects/${project.id}/locations/${project.locations[0]!.id}/git/stage`, { paths: ["notes.txt"] });
  await files.getByRole("button", { name: /^notes\.txt .* staged$/ }).waitFor();
  await atrium.api("POST", `/v1/projects/${project.id}/locations/${project.locations[0]!.id}/git/unstage`, { paths: ["notes.txt"] });
  await files.getByRole("button", { name: /^notes\.txt .*\+1 −1$/ }).waitFor();

  // The pre-commit hook refuses: its words, as git gave them; then the commit skips it.
  const commitBox = page.getByRole("form", { name: "Commit" });
  // "Write the message" fills the field from what is staged (one hunk of app.txt); the phone then writes its own over it.
  const writeTheMessage = commitBox.getByRole("button", { name: "Write the message" });
  expect(await height(writeTheMessage)).toBeGreaterThanOrEqual(44);
  await writeTheMessage.tap();
  await until(
    () => commitBox.getByLabel("Commit message").inputValue(),
    (value) => value === "Update app.txt\n\n- modified app.txt (+1 -1)\n",
  );
  await screenshot(page, "console-git-message-written-phone");
  await commitBox.getByLabel("Commit message").fill("Capitalise the last line\n\nFrom the phone.");
  await commitBox.getByRole("button", { name: "Commit staged changes" }).tap();
  await commitBox.getByRole("alert").filter({ hasText: "lint: app.txt says LINE in capitals" }).waitFor();
  expect(git(["log", "--format=%s"], repo)).toBe("first");
  await screenshot(page, "console-git-hook-refused-phone");
  // A choice's whole line is its target on a touch screen.
  for (const choice of await commitBox.locator("label.check").all()) expect(await height(choice)).toBeGreaterThanOrEqual(44);
  await commitBox.getByLabel("Skip hooks").check();
  await commitBox.getByRole("button", { name: "Commit staged changes" }).tap();
  const committed = commitBox.getByRole("status").filter({ hasText: "Committed" });
  await committed.waitFor();
  const head = git(["rev-parse", "HEAD"], repo);
  expect(await committed.innerText()).toBe(`Committed ${head.slice(0, 10)} on main.`);
  expect(git(["log", "-1", "--format=%an%n%B"], repo)).toBe("Phone User\nCapitalise the last line\n\nFrom the phone.");
  // The first hunk, not staged, is still a change in the working tree.
  expect(git(["diff", "--name-only"], repo).split("\n")).toEqual(["README.md", "app.txt", "notes.txt"]);
  await page.getByText("tracks origin/main: 1 ahead, 0 behind").waitFor();

  // The remote holds the push in its pre-receive hook until the test writes to a fifo: meanwhile the panel shows git's progress.
  const held = join(dir.path, "hold-push");
  execFileSync("mkfifo", [held]);
  const hold = join(bare, "hooks", "pre-receive");
  writeFileSync(hold, `#!/bin/sh\nread released < '${held}'\ncat >/dev/null\n`);
  chmodSync(hold, 0o755);
  await page.getByRole("button", { name: "Push", exact: true }).tap();
  const pushProgress = page.getByRole("progressbar", { name: "Push progress" });
  await pushProgress.waitFor();
  await page.locator(".remote-progress").filter({ hasText: "Writing objects: 100%" }).waitFor();
  expect(await pushProgress.getAttribute("value")).toBe("100");
  await screenshot(page, "console-git-push-progress-phone");
  await Bun.spawn(["sh", "-c", `echo go > '${held}'`]).exited;
  await page
    .getByRole("status")
    .filter({ hasText: `Pushed main to origin (now ${head.slice(0, 10)}).` })
    .waitFor();
  expect(await pushProgress.count()).toBe(0);
  rmSync(hold);
  expect(git(["rev-parse", "main"], bare)).toBe(head);
  await page.getByText("tracks origin/main: 0 ahead, 0 behind").waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  await screenshot(page, "console-git-pushed-phone");

  // A branch made and checked out from the panel, the changes not committed coming along; then back to main.
  await page.getByRole("button", { name: "Switch branch" }).tap();
  await page.getByLabel("New branch").fill("topic");
  await page.getByRole("button", { name: "Create and switch" }).tap();
  await page.locator(".branch-now").filter({ hasText: "On topic not pushed yet" }).waitFor();
  expect(git(["symbolic-ref", "--short", "HEAD"], repo)).toBe("topic");
  // The focus goes back to the button that opened the form once the form closes, a render after the branch shows.
  await until(
    () => focused(page),
    (now) => now === "button: Switch branch",
  );
  await page.getByRole("button", { name: "Switch branch" }).tap();
  await page.locator(".branch-switch").getByRole("combobox").selectOption("main");
  await page.getByRole("button", { name: "Switch", exact: true }).tap();
  await page.locator(".branch-now").filter({ hasText: "On main tracks origin/main" }).waitFor();
  expect(git(["diff", "--name-only"], repo).split("\n")).toEqual(["README.md", "app.txt", "notes.txt"]);
  expect(problems.filter((problem) => problem !== refusedRequest("409 (Conflict)"))).toEqual([]);
}, 120_000);

const commitIn = (folder: string, file: string, content: string, message: string) => {
  writeFileSync(join(folder, file), content);
  git(["add", file], folder);
  git(["commit", "--quiet", "-m", message], folder);
};

test("on a phone: a worktree session's branch pushed with its upstream, a pull request and its state, merge back refused on a conflict, then landed", async () => {
  const { bare: sessionBare } = makeBareRepoWith(dir.path, "session-remote", { "shared.txt": "as it was\n" });
  const folder = makeCheckout(dir.path, sessionBare, "session-repo");
  git(["config", "user.name", "Phone User"], folder);
  git(["config", "user.email", "phone@atrium.invalid"], folder);
  const sessionProject = await atrium.api<Project>("POST", "/v1/projects", { folderPath: folder, name: "Worktrees" });
  const session = await atrium.api<Session & { cwd: string }>("POST", "/v1/sessions", {
    projectId: sessionProject.id,
    harnessId: "echo",
    title: "Fix the shared file",
    runLocation: "worktree",
  });
  const branch = git(["symbolic-ref", "--short", "HEAD"], session.cwd);
  commitIn(session.cwd, "shared.txt", "as the session wrote it\n", "The session's fix");
  // Meanwhile main changes the same line: the merge back cannot land.
  commitIn(folder, "shared.txt", "as main wrote it\n", "Main's own fix");

  const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`, true);
  await page.getByRole("tab", { name: "Changes" }).tap();
  await page.getByRole("button", { name: "Show changes" }).tap();
  await page.getByText("Nothing changed since").waitFor();
  await page.getByText("not pushed yet").waitFor();
  await page.getByRole("button", { name: "Push", exact: true }).tap();
  await page
    .getByRole("status")
    .filter({ hasText: `Pushed ${branch} to origin` })
    .waitFor();
  expect(git(["rev-parse", `refs/heads/${branch}`], sessionBare)).toBe(git(["rev-parse", "HEAD"], session.cwd));
  await page.getByText(`tracks origin/${branch}: 0 ahead, 0 behind`).waitFor();

  await page.getByRole("button", { name: `New pull request of ${branch}` }).tap();
  const form = page.getByRole("form", { name: `New pull request of ${branch}` });
  await form.getByLabel("Title").fill("Fix the shared file");
  await form.getByLabel("Description").fill("From the phone.");
  await form.getByLabel("A draft").check();
  await form.getByRole("button", { name: "Open pull request" }).tap();
  const link = page.getByRole("link", { name: "#1 Fix the shared file" });
  await link.waitFor();
  expect(await link.getAttribute("href")).toBe("https://github.com/octo/repo/pull/1");
  await page.getByText(`open · draft · ${branch} into main · no checks`).waitFor();
  const gh = JSON.parse(readFileSync(join(bin, "state.json"), "utf8")) as { calls: { args: string[] }[]; prs: Record<string, unknown>[] };
  expect(gh.calls.find((call) => call.args[1] === "create")!.args).toEqual([
    "pr",
    "create",
    "--head",
    branch,
    "--title",
    "Fix the shared file",
    "--body",
    "From the phone.",
    "--draft",
  ]);
  // GitHub moves on: a check passes, one fails, a reviewer approves; asked again, the page says so.
  Object.assign(gh.prs[0]!, {
    reviewDecision: "APPROVED",
    statusCheckRollup: [
      { __typename: "CheckRun", name: "test", status: "COMPLETED", conclusion: "SUCCESS" },
      { __typename: "StatusContext", context: "ci/lint", state: "FAILURE" },
    ],
  });
  writeFileSync(join(bin, "state.json"), JSON.stringify(gh));
  await page.getByRole("button", { name: "Check its state (#1)" }).tap();
  await page.getByText(`open · draft · ${branch} into main · checks 1 passed, 1 failed · approved`).waitFor();
  await screenshot(page, "console-git-pull-request-phone");

  const merge = page.getByRole("form", { name: "Merge back" });
  await merge.getByLabel("How").selectOption("squash");
  await merge.getByRole("button", { name: "Merge back" }).tap();
  await merge.getByRole("alert").waitFor();
  expect(await merge.getByRole("list", { name: "Conflicting files" }).innerText()).toBe("shared.txt");
  expect(git(["log", "-1", "--format=%s", "main"], folder)).toBe("Main's own fix");
  await merge.getByRole("list", { name: "Conflicting files" }).scrollIntoViewIfNeeded();
  await screenshot(page, "console-git-merge-conflict-phone");

  // Main's change taken back: the session's branch now lands, squashed, and its worktree goes.
  git(["reset", "--quiet", "--hard", "HEAD~1"], folder);
  await merge.getByLabel("Remove the worktree once merged").check();
  await merge.getByRole("button", { name: "Merge back" }).tap();
  const landed = merge.getByRole("status");
  await landed.filter({ hasText: "the worktree is removed" }).waitFor();
  expect(await landed.innerText()).toBe(`${branch} landed on main (squash), now ${git(["rev-parse", "main"], folder).slice(0, 10)}; the worktree is removed.`);
  expect(readFileSync(join(folder, "shared.txt"), "utf8")).toBe("as the session wrote it\n");
  expect(await overflowsSideways(page)).toBe(false);
  await landed.scrollIntoViewIfNeeded();
  await screenshot(page, "console-git-merged-phone");
  expect(problems.filter((problem) => problem !== refusedRequest("409 (Conflict)"))).toEqual([]);
}, 120_000);

test("on a phone: a session's agent writes the message, the box says it is writing, and text typed meanwhile stays with the agent's offered beside it", async () => {
  const { bare: toolBare } = makeBareRepoWith(dir.path, "tool-remote", { "README.md": "# Tool\n" });
  const folder = makeCheckout(dir.path, toolBare, "tool-repo");
  writeFileSync(join(folder, "README.md"), "# Tool\n\nA tool for phones.\n");
  git(["add", "README.md"], folder);
  const toolProject = await atrium.api<Project>("POST", "/v1/projects", { folderPath: folder, name: "Tool" });
  const session = await atrium.api<Session>("POST", "/v1/sessions", {
    projectId: toolProject.id,
    harnessId: "scripted",
    title: "Describe the tool",
    runLocation: "projectDirectory",
  });

  const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`, true);
  await page.getByRole("tab", { name: "Changes" }).tap();
  await page.getByRole("button", { name: "Show changes" }).tap();
  const commitBox = page.getByRole("form", { name: "Commit" });
  const box = commitBox.getByLabel("Commit message");
  await commitBox.getByRole("button", { name: "Write the message" }).tap();
  // The agent holds its answer at the gate: the button says it is writing, in place, and the phone types its own meanwhile.
  const writing = commitBox.getByRole("button", { name: "The agent is writing…" });
  await writing.waitFor();
  expect(await height(writing)).toBeGreaterThanOrEqual(44);
  await screenshot(page, "console-git-agent-writing-phone");
  await box.fill("Say what the tool is");
  mkdirSync(dirname(gateFile(agentState, "message")), { recursive: true });
  writeFileSync(gateFile(agentState, "message"), "");

  const note = commitBox.getByRole("status").filter({ hasText: "You typed while it was written, so your text stays." });
  await note.waitFor();
  expect(await box.inputValue()).toBe("Say what the tool is");
  expect(await note.locator("pre").innerText()).toBe(AGENT_MESSAGE);
  expect(await overflowsSideways(page)).toBe(false);
  await note.scrollIntoViewIfNeeded();
  await screenshot(page, "console-git-agent-message-offered-phone");
  const use = note.getByRole("button", { name: "Use the written message" });
  expect(await height(use)).toBeGreaterThanOrEqual(44);
  await use.tap();
  expect(await box.inputValue()).toBe(AGENT_MESSAGE);
  expect(await note.count()).toBe(0);

  // Nothing of it reached the conversation.
  expect((await atrium.api<{ conversation: unknown[] }>("GET", `/v1/sessions/${session.id}`)).conversation).toEqual([]);
  expect(problems).toEqual([]);
}, 120_000);

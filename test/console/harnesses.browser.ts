import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Harness } from "../../src/schemas/harnesses.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The Harnesses page against the compiled server, whose PATH starts with the fixtures' fake CLIs: npm
// (installs fake harnesses, one package a second and a half), Codex with its ACP adapter, and OpenCode.
const fixtures = join(import.meta.dir, "..", "fixtures");
let atrium: ConsoleUnderTest;
let machine: ReturnType<typeof makeTempDir>;
const home = () => join(machine.path, "home");
const dataHome = () => join(machine.path, "data");

beforeAll(async () => {
  machine = makeTempDir("atrium-console-harnesses-");
  const bin = join(machine.path, "bin");
  const clis = join(machine.path, "clis");
  for (const dir of [bin, clis, home(), dataHome()]) mkdirSync(dir);
  for (const name of ["codex", "codex-acp", "opencode"]) symlinkSync(join(fixtures, "fake-clis", name), join(clis, name));
  atrium = await startConsole({
    PATH: [bin, clis, join(fixtures, "fake-npm"), "/usr/bin", "/bin"].join(":"),
    HOME: home(),
    XDG_DATA_HOME: dataHome(),
    FAKE_NPM_BIN: bin,
    FAKE_NPM_STEP_DELAY: "1.5",
  });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  machine?.remove();
});

const harness = (id: string) => atrium.api<Harness>("GET", `/v1/harnesses/${id}`);

describe("the Harnesses page", () => {
  test("on a phone: installing Claude Code shows npm's output line by line while it runs, then the harness is ready", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/harnesses");
    const claude = page.locator('[data-harness="claude"]');
    await claude.getByText("Not installed").waitFor();
    await claude.getByText("npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp").waitFor();
    await claude.getByRole("button", { name: "Install" }).click();

    // npm reports each package as it is done: the first line shows while the second is still coming.
    const log = claude.getByRole("log");
    await log.filter({ hasText: "added 1 package" }).waitFor();
    const midway = await claude.evaluate((card) => ({
      log: card.querySelector('[role="log"]')?.textContent,
      status: card.querySelector('[role="status"]')?.textContent,
    }));
    expect(midway).toEqual({ log: "added 1 package in 1s\n", status: "Installing…" });

    await claude.getByText("Ready", { exact: true }).waitFor();
    await claude.getByText("Exited with code 0").waitFor();
    expect(await log.textContent()).toBe("added 1 package in 1s\nadded 1 package in 1s\n");
    expect(await claude.getByRole("button", { name: "Install" }).count()).toBe(0);
    expect((await harness("claude")).readiness).toMatchObject({ state: "ready", version: "2.1.197" });
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE.width);
    await claude.scrollIntoViewIfNeeded();
    await screenshot(page, "console-harness-install-phone");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone: a failing install shows the phase failed, the server's reason and npm's output, also after a reload", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/harnesses");
    const qwen = page.locator('[data-harness="qwen"]');
    await qwen.getByRole("button", { name: "Install" }).click();
    await qwen.getByRole("alert").filter({ hasText: "Failed: the command exited with 1" }).waitFor();
    const npmSaid = "npm error 404 Not Found - GET https://registry.npmjs.org/@qwen-code/qwen-code";
    await qwen.getByRole("log").filter({ hasText: npmSaid }).waitFor();
    await qwen.getByText("Exited with code 1").waitFor();
    expect((await harness("qwen")).lifecycle.phase).toBe("failed");

    // A page opened afterwards reads the kept output by the terminal's id.
    await page.reload();
    await qwen.getByRole("log").filter({ hasText: npmSaid }).waitFor();
    await qwen.getByRole("alert").filter({ hasText: "Failed: the command exited with 1" }).waitFor();
    expect(await qwen.getByText("Not installed").count()).toBe(1);
    expect(await qwen.getByRole("button", { name: "Install" }).isEnabled()).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: Codex accounts are added, renamed, made active and deleted; sign-in is read again; the harness is switched off and on", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/harnesses");
    const codex = page.locator('[data-harness="codex"]');
    const defaultAccount = codex.locator('[data-account="codex:default"]');
    await defaultAccount.getByText("Signed out").waitFor();
    expect(await defaultAccount.locator("code").textContent()).toBe("codex login");
    expect(await defaultAccount.getByRole("button", { name: "Delete" }).count()).toBe(0);

    await codex.getByLabel("New account label").fill("Work");
    await codex.getByRole("button", { name: "Add account" }).click();
    const work = codex.locator("li.account", { hasText: "Work" });
    await work.getByText("Signed out").waitFor();
    const accountId = await work.getAttribute("data-account");
    const command = (await work.locator("code").textContent()) ?? "";
    const configHome = /^CODEX_HOME='([^']+)' codex login$/.exec(command)?.[1] ?? "";
    expect(configHome).toStartWith(join(atrium.home.path, "accounts", "codex"));
    expect(existsSync(configHome)).toBe(true);

    await work.getByRole("button", { name: "Rename" }).click();
    await work.getByLabel("Label").fill("Personal");
    await work.getByRole("button", { name: "Save" }).click();
    const personal = codex.locator(`[data-account="${accountId}"]`);
    await personal.getByText("Personal", { exact: true }).waitFor();
    await personal.getByRole("button", { name: "Make active" }).click();
    await personal.getByText("Active", { exact: true }).waitFor();
    expect(await defaultAccount.getByText("Active", { exact: true }).count()).toBe(0);
    expect((await harness("codex")).auth).toMatchObject({ activeAccountId: accountId });
    await codex.scrollIntoViewIfNeeded();
    await screenshot(page, "console-harness-accounts-desktop");

    await personal.getByRole("button", { name: "Delete" }).click();
    await personal.getByRole("button", { name: "Delete account" }).click();
    await personal.waitFor({ state: "detached" });
    await defaultAccount.getByText("Active", { exact: true }).waitFor();
    expect(existsSync(configHome)).toBe(false);
    expect((await harness("codex")).auth.accounts.map((account) => account.id)).toEqual(["codex:default"]);

    // Logged in behind the page's back (as `codex login` would); the page reads it on request.
    mkdirSync(join(home(), ".codex"));
    writeFileSync(join(home(), ".codex", "auth.json"), "{}");
    await page.getByRole("button", { name: "Refresh sign-in" }).click();
    await defaultAccount.getByText("Signed in").waitFor();
    expect(await defaultAccount.locator("code").count()).toBe(0);

    await codex.getByRole("button", { name: "Disable" }).click();
    await codex.getByText("Disabled", { exact: true }).waitFor();
    expect((await harness("codex")).desiredEnabled).toBe(false);
    await codex.getByRole("button", { name: "Enable" }).click();
    await codex.getByRole("button", { name: "Disable" }).waitFor();
    expect((await harness("codex")).desiredEnabled).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: an OpenCode API key is asked for masked and lands in auth.json under XDG_DATA_HOME; a refused sign-in shows why", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/harnesses");
    const opencode = page.locator('[data-harness="opencode"]');
    const account = opencode.locator('[data-account="opencode:default"]');
    await account.getByText("Signed out").waitFor();

    await opencode.getByLabel("Provider", { exact: true }).fill("anthropic");
    await opencode.getByLabel("Method").selectOption("oauth");
    await opencode.getByRole("button", { name: "Start sign-in" }).click();
    await opencode.getByRole("alert").filter({ hasText: "anthropic has no sign-in Atrium can run" }).waitFor();

    await opencode.getByLabel("Method").selectOption("api_key");
    await opencode.getByRole("button", { name: "Start sign-in" }).click();
    const key = opencode.getByLabel("Paste the API key for anthropic");
    expect(await key.getAttribute("type")).toBe("password");
    await key.fill("sk-ant-console-test");
    await opencode.getByRole("button", { name: "Submit" }).click();
    await opencode.getByRole("status").filter({ hasText: "Signed in (anthropic)" }).waitFor();
    expect(await opencode.getByRole("alert").count()).toBe(0);
    await account.getByText("Signed in").waitFor();

    const authFile = join(dataHome(), "opencode", "auth.json");
    expect(JSON.parse(readFileSync(authFile, "utf8"))).toEqual({ anthropic: { type: "api", key: "sk-ant-console-test" } });
    expect(statSync(authFile).mode & 0o777).toBe(0o600);
    expect(await page.content()).not.toContain("sk-ant-console-test");
    // The refused sign-in is a 400, which Chromium reports as a failed load; nothing else may appear.
    expect(problems).toEqual([expect.stringContaining("status of 400")]);
    await page.context().close();
  });
});

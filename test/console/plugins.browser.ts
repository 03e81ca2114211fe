import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FrameLocator, Locator, Page } from "playwright-core";
import type { OpenedPane, Plugin, PluginList } from "../../src/schemas/plugins.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { demoManifest, pluginRepo, writePlugin } from "../helpers/plugin-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The console's Plugins page against the compiled server, with the demo plugin of test/plugins: a real
// Bun server run by Atrium, installed from a folder and from a local bare git repository. Its `probe`
// pane tries to read Atrium's token and the console's window, and calls its own backend.

/** `bun` for the plugin's commands, as in test/plugins. */
const PATH = [join(import.meta.dir, "..", "..", "node_modules", ".bin"), "/usr/bin", "/bin"].join(":");
/** The console's test build has the package's version: the demo plugin must not ask for a newer Atrium. */
const manifest = (version: string) => demoManifest(version, { minServiceVersion: "0.0.0" });
const SANDBOX = "allow-scripts allow-forms allow-popups allow-modals allow-downloads";
const PROBE = "Demo: Isolation probe";

let atrium: ConsoleUnderTest;
let fixtures: ReturnType<typeof makeTempDir>;

beforeAll(async () => {
  fixtures = makeTempDir("atrium-console-plugins-");
  atrium = await startConsole({ PATH });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  fixtures?.remove();
});

const demo = () => atrium.api<Plugin>("GET", "/v1/plugins/demo");
const card = (page: Page): Locator => page.locator("[data-plugin]").filter({ has: page.getByRole("heading", { name: "Demo", exact: true }) });
const overflowsSideways = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth");
/** What Chromium logs for a request the server refused: the page shows the sentence, the log the status. */
const refusedRequest = (status: string) => `Failed to load resource: the server responded with a status of ${status}`;

/** A definition list as `{term: description}`. */
const factsOf = (list: Locator) =>
  list.evaluate((element) => {
    const terms = [...element.querySelectorAll("dt")];
    return Object.fromEntries(terms.map((term) => [term.textContent, term.nextElementSibling?.textContent]));
  });

/** Reads the plugin at `source` through the page, checks what it asks for, and installs it with that consent. */
async function installThroughPage(page: Page, source: string, version: string): Promise<Locator> {
  const form = page.getByRole("form", { name: "Add a plugin" });
  await form.getByLabel("Git URL or folder of a plugin").fill(source);
  await form.getByRole("button", { name: "Discover" }).click();
  const consent = page.getByRole("region", { name: "What Demo asks for" });
  await consent.getByRole("heading", { name: `Demo ${version}` }).waitFor();
  expect(await factsOf(consent.locator("dl"))).toMatchObject({
    "Age rating": "0+",
    Panes: "Board, Isolation probe",
    Tools: "add (Adds two numbers)",
    Needs: "git",
    "It runs": "bun demo-server.ts",
  });
  // Discovering installs and runs nothing.
  expect((await atrium.api<PluginList>("GET", "/v1/plugins")).plugins).toEqual([]);
  await consent.getByRole("button", { name: "Install Demo" }).click();
  const installed = card(page);
  await installed.getByText("Running", { exact: true }).waitFor();
  expect(await consent.count()).toBe(0);
  expect(await demo()).toMatchObject({ version, enabled: true, state: "running", sourceRepo: source });
  return installed;
}

async function disable(plugin: Locator): Promise<void> {
  await plugin.getByRole("button", { name: "Disable" }).click();
  await plugin.getByText("Stopped", { exact: true }).waitFor();
  expect(await demo()).toMatchObject({ enabled: false, state: "stopped" });
  expect(await plugin.getByRole("group", { name: "Panes" }).count()).toBe(0);
}

async function enable(plugin: Locator): Promise<void> {
  await plugin.getByRole("button", { name: "Enable" }).click();
  await plugin.getByText("Running", { exact: true }).waitFor();
  expect(await demo()).toMatchObject({ enabled: true, state: "running" });
}

/** What the probe pane shows (in a frame or a tab of its own), once its script has tried everything. */
async function probeResults(pane: Pick<FrameLocator, "getByRole" | "locator">) {
  await pane.getByRole("heading", { name: "Isolation probe" }).waitFor();
  const backend = pane.locator("#backend");
  await backend.filter({ hasNotText: "not tried" }).waitFor();
  return { storage: await pane.locator("#storage").textContent(), parent: await pane.locator("#parent").textContent(), backend: await backend.textContent() };
}

/**
 * Opens the probe pane in the page's frame: it runs, reaches its own backend (a JSON POST, so through a
 * preflight), and can read neither the token the console keeps nor the console's window.
 */
async function openProbe(page: Page, plugin: Locator, version: string): Promise<{ pane: Locator; url: string }> {
  await plugin.getByRole("button", { name: "Open Isolation probe" }).click();
  const pane = page.getByRole("region", { name: PROBE });
  const frame = pane.locator("iframe");
  await frame.waitFor();
  expect(await frame.getAttribute("sandbox")).toBe(SANDBOX);
  expect(await frame.getAttribute("referrerpolicy")).toBe("no-referrer");
  expect(await probeResults(pane.frameLocator("iframe"))).toEqual({
    storage: "storage: refused (SecurityError)",
    parent: "parent: refused (SecurityError)",
    backend: `backend: hello from demo ${version}, origin null`,
  });
  // The token was there to take: the console itself reads it.
  expect(await page.evaluate(() => localStorage.getItem("atrium.token"))).toBe(atrium.adminToken());
  await plugin.getByText("1 open pane").waitFor();
  expect((await demo()).openPaneCount).toBe(1);
  return { pane, url: (await frame.getAttribute("src")) ?? "" };
}

async function closePane(page: Page, plugin: Locator, opened: { pane: Locator; url: string }): Promise<void> {
  await opened.pane.getByRole("button", { name: `Close ${PROBE}` }).click();
  await opened.pane.waitFor({ state: "detached" });
  await plugin.getByText("0 open panes").waitFor();
  expect((await demo()).openPaneCount).toBe(0);
  expect((await fetch(opened.url)).status).toBe(404);
  expect(await page.locator("iframe").count()).toBe(0);
}

async function uninstall(page: Page, plugin: Locator): Promise<void> {
  const folder = (await demo()).path;
  expect(existsSync(folder)).toBe(true);
  await plugin.getByRole("button", { name: "Uninstall" }).click();
  // The first click only asks.
  expect(await demo()).toMatchObject({ id: "demo" });
  await plugin.getByRole("button", { name: "Uninstall Demo?" }).click();
  await page.getByText("No plugins yet").waitFor();
  expect((await atrium.api<PluginList>("GET", "/v1/plugins")).plugins).toEqual([]);
  expect(existsSync(folder)).toBe(false);
}

describe("the console's Plugins page", () => {
  test("on a phone: install from a folder with consent, disable and enable, a pane that cannot read the token, close, disable, uninstall", async () => {
    const folder = join(fixtures.path, "demo-folder");
    writePlugin(folder, manifest("1.0.0"));
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/plugins");
    await page.getByText("No plugins yet").waitFor();

    const plugin = await installThroughPage(page, folder, "1.0.0");
    await disable(plugin);
    await enable(plugin);
    const opened = await openProbe(page, plugin, "1.0.0");
    expect(await overflowsSideways(page)).toBe(false);
    await screenshot(page, "console-plugins-phone");
    await closePane(page, plugin, opened);
    await disable(plugin);
    await uninstall(page, plugin);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: install from git, a change by another client shown live, a pane opened in a tab is sandboxed too, update, uninstall", async () => {
    const repo = pluginRepo(fixtures.path, "demo", manifest("1.0.0"));
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/plugins");
    await page.getByText("No plugins yet").waitFor();

    // A source without a plugin: the server's sentence, and nothing to consent to.
    const form = page.getByRole("form", { name: "Add a plugin" });
    await form.getByLabel("Git URL or folder of a plugin").fill(fixtures.path);
    await form.getByRole("button", { name: "Discover" }).click();
    await page.getByRole("alert").filter({ hasText: "no atrium-plugin.json" }).waitFor();

    const plugin = await installThroughPage(page, repo.url, "1.0.0");
    await atrium.api("PATCH", "/v1/plugins/demo", { enabled: false });
    await plugin.getByText("Stopped", { exact: true }).waitFor();
    await enable(plugin);

    // Opened outside any frame (a tab, as a native client's web view would), the server's header alone isolates it.
    const direct = await atrium.api<OpenedPane>("POST", "/v1/plugins/demo/panes/probe/open");
    const tab = await page.context().newPage();
    await tab.goto(direct.url);
    expect(await probeResults(tab)).toEqual({
      storage: "storage: refused (SecurityError)",
      parent: "parent: read Probe",
      backend: "backend: hello from demo 1.0.0, origin null",
    });
    await tab.close();
    await atrium.api("DELETE", `/v1/plugins/demo/panes/${direct.ticket}`);

    const opened = await openProbe(page, plugin, "1.0.0");
    await screenshot(page, "console-plugins-desktop");
    await closePane(page, plugin, opened);

    await plugin.getByRole("button", { name: "Check for an update" }).click();
    await plugin.getByRole("status").filter({ hasText: "up to date" }).waitFor();
    repo.publish(manifest("2.0.0"));
    await plugin.getByRole("button", { name: "Check for an update" }).click();
    await plugin.getByText("1.0.0 → 2.0.0", { exact: true }).waitFor();
    expect(await plugin.getByRole("list", { name: "What changes" }).textContent()).toContain("version 1.0.0 → 2.0.0");
    await plugin.getByRole("button", { name: "Update to 2.0.0" }).click();
    await plugin.getByText("2.0.0 · enabled").waitFor();
    await plugin.getByText("Running", { exact: true }).waitFor();
    expect(await demo()).toMatchObject({ version: "2.0.0", canRestore: true, state: "running" });
    await closePane(page, plugin, await openProbe(page, plugin, "2.0.0"));

    await disable(plugin);
    await uninstall(page, plugin);
    expect(problems).toEqual([refusedRequest("400 (Bad Request)"), refusedRequest("409 (Conflict)")]);
    await page.context().close();
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import type { McpMachineState, McpServer, McpServerList } from "../../src/schemas/mcps.ts";
import { type ApiClient, apiClient } from "../helpers/api-client.ts";
import { type ConsoleUnderTest, DESKTOP, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { type HttpMcpFixture, startHttpMcpServer, stdioFixtureCommand } from "../helpers/mcp-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// The MCP servers page against the compiled server, with real MCP servers: the stdio fixture run by Bun
// (as the server tests run it), an HTTP one behind its own OAuth server, and Claude Code's own config in
// a temp HOME, listed because a fake `claude` is on the PATH.
let atrium: ConsoleUnderTest;
let server: ApiClient;
let machine: ReturnType<typeof makeTempDir>;
let oauthServer: HttpMcpFixture;
const fixtures = join(import.meta.dir, "..", "fixtures");
const stdio = stdioFixtureCommand();
/** A value the page must never show: the server keeps it and returns only its name. */
const SECRET = "sk-fixture-value-9d41";
const CLAUDE_SECRET = "claude-env-value-77b2";

beforeAll(async () => {
  machine = makeTempDir("atrium-console-mcp-");
  const clis = join(machine.path, "clis");
  const home = join(machine.path, "home");
  for (const dir of [clis, home]) mkdirSync(dir);
  symlinkSync(join(fixtures, "fake-clis", "claude"), join(clis, "claude"));
  const claudeServer = stdioFixtureCommand("--tools", "2");
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ mcpServers: { "claude-files": { ...claudeServer, env: { TOKEN: CLAUDE_SECRET } } } }));
  oauthServer = startHttpMcpServer({ oauth: { scope: "files:read" } });
  atrium = await startConsole({ PATH: [clis, "/usr/bin", "/bin"].join(":"), HOME: home });
  server = apiClient(atrium.serve.url, atrium.adminToken());
}, 120_000);

// Each test starts with no server of Atrium's own, whatever the one before left.
afterEach(async () => {
  for (const listed of await managed()) await server.json("DELETE", `/v1/mcps/${listed.id}`);
});

afterAll(async () => {
  await atrium?.close();
  oauthServer?.stop();
  machine?.remove();
});

const managed = async () => (await server.json<McpServerList>("GET", "/v1/mcps")).body.servers.filter((listed) => listed.kind === "managed");
const named = async (name: string) => (await server.json<McpServerList>("GET", "/v1/mcps")).body.servers.find((listed) => listed.name === name);
const card = (page: Page, name: string): Locator => page.locator("[data-mcp]").filter({ has: page.getByRole("heading", { name, exact: true }) });
/** The badge saying exactly this ("Connected" is also in "Not connected"). */
const badge = (cardOf: Locator, text: string) => cardOf.locator(".badge").getByText(text, { exact: true });
const overflowsSideways = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth");
/** The time as the page writes it, in the browser's own locale. */
const shownTime = (page: Page, timestamp: string) =>
  page.evaluate((at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }), timestamp);
const refusedRequest = (status: string) => `Failed to load resource: the server responded with a status of ${status}`;

describe("the console's MCP servers page", () => {
  test("on a phone: add a stdio server, probe it, turn it off and on, a refused server adds nothing, delete after confirming", async () => {
    const { page, problems } = await atrium.openSignedIn(PHONE, "/#/mcps");
    await page.getByRole("region", { name: "Made in Atrium" }).getByText("None yet").waitFor();

    await page.getByRole("button", { name: "Add a server" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name", { exact: true }).fill("files");
    expect(await form.getByLabel("Transport").inputValue()).toBe("stdio");
    await form.getByLabel("Command").fill(stdio.command);
    await form.getByLabel("Arguments, one per line").fill(stdio.args.join("\n"));
    await form.getByRole("button", { name: "Add a variable" }).click();
    await form.getByLabel("Variable name").fill("FIXTURE_KEY");
    await form.getByLabel("Variable value").fill(SECRET);
    expect(await form.getByLabel("Variable value").getAttribute("type")).toBe("password");
    await form.getByRole("button", { name: "Add server" }).click();
    await form.waitFor({ state: "detached" });

    const files = card(page, "files");
    await badge(files, "Connected").waitFor();
    await files.getByText(/^3 tools, last probed at /).waitFor();
    await files.getByText(`${stdio.command} ${stdio.args.join(" ")}`, { exact: true }).waitFor();
    expect(await files.locator(".mcp-names li").allInnerTexts()).toEqual(["FIXTURE_KEY set"]);
    expect(await page.content()).not.toContain(SECRET);
    const added = (await named("files"))!;
    expect(added).toMatchObject({ kind: "managed", transport: "stdio", command: stdio.command, args: stdio.args, environmentNames: ["FIXTURE_KEY"] });

    // Probing again: the newer probe's time reaches the card.
    await files.getByRole("button", { name: "Probe now" }).click();
    const probed = await until(
      () => named("files"),
      (listed) => listed?.probedAt !== added.probedAt && listed?.connectionState === "connected",
    );
    await files.getByText(`3 tools, last probed at ${await shownTime(page, probed!.probedAt!)}`, { exact: true }).waitFor();
    await files.getByRole("button", { name: "Probe now" }).and(page.locator(":enabled")).waitFor();

    const enabled = files.getByRole("switch", { name: "Enabled" });
    expect(await enabled.getAttribute("aria-checked")).toBe("true");
    await enabled.click();
    await badge(files, "Not connected").waitFor();
    await files.getByText("turned off", { exact: true }).waitFor();
    expect(await enabled.getAttribute("aria-checked")).toBe("false");
    expect((await named("files"))?.enabled).toBe(false);
    await enabled.click();
    await badge(files, "Connected").waitFor();
    expect(await enabled.getAttribute("aria-checked")).toBe("true");
    expect((await named("files"))?.enabled).toBe(true);
    await files.getByText(/^3 tools/).waitFor();
    // The harness's own server is listed, read-only, its value shown only as set.
    const claude = card(page, "claude-files");
    await claude.getByText("Claude Code's own config").waitFor();
    expect(await page.content()).not.toContain(CLAUDE_SECRET);
    expect(await overflowsSideways(page)).toBe(false);
    await screenshot(page, "console-mcp-phone");

    // An HTTP server without its URL: the server's sentence, in the form, and nothing added.
    await page.getByRole("button", { name: "Add a server" }).click();
    await form.getByLabel("Name", { exact: true }).fill("remote");
    await form.getByLabel("Transport").selectOption("http");
    await form.getByRole("button", { name: "Add server" }).click();
    const refusal = form.getByRole("alert");
    await refusal.waitFor();
    const sentence = (await server.json<{ error: string }>("POST", "/v1/mcps", { name: "remote", transport: "http" })).body.error;
    expect(sentence).toContain("url");
    expect(await refusal.textContent()).toBe(sentence);
    expect(await form.getByRole("button", { name: "Add server" }).isEnabled()).toBe(true);
    expect((await managed()).map((listed) => listed.name)).toEqual(["files"]);
    await form.getByRole("button", { name: "Cancel" }).click();
    expect(await page.locator("[data-mcp]").count()).toBe(2);

    await files.getByRole("button", { name: "Delete", exact: true }).click();
    expect(await managed()).toHaveLength(1);
    await files.getByRole("button", { name: "Delete files?" }).click();
    await files.waitFor({ state: "detached" });
    await page.getByRole("region", { name: "Made in Atrium" }).getByText("None yet").waitFor();
    expect(await managed()).toEqual([]);
    expect(problems).toEqual([refusedRequest("400 (Bad Request)")]);
    await page.context().close();
  });

  test("on a desktop: a server another client adds appears live; edit, switch off here, a harness's own probed, an OAuth sign-in", async () => {
    const { page, problems } = await atrium.openSignedIn(DESKTOP, "/#/mcps");
    await page.getByRole("region", { name: "Made in Atrium" }).getByText("None yet").waitFor();
    const created = await server.json<McpServer>("POST", "/v1/mcps", { name: "docs", transport: "stdio", ...stdio, environment: { DOCS_KEY: SECRET } });
    expect(created.status).toBe(201);
    const docs = card(page, "docs");
    await badge(docs, "Connected").waitFor();
    await docs.getByText(/^3 tools/).waitFor();

    // Editing keeps the stored value (its field left empty) and passes the new arguments.
    await docs.getByRole("button", { name: "Edit" }).click();
    const edit = docs.getByRole("form", { name: "Edit docs" });
    expect(await edit.getByLabel("Command").inputValue()).toBe(stdio.command);
    expect(await edit.getByLabel("New value for DOCS_KEY").inputValue()).toBe("");
    await edit.getByLabel("Arguments, one per line").fill([...stdio.args, "--tools", "5"].join("\n"));
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "detached" });
    await docs.getByText(/^5 tools/).waitFor();
    expect(await named("docs")).toMatchObject({ args: [...stdio.args, "--tools", "5"], environmentNames: ["DOCS_KEY"], connectionState: "connected" });

    const here = docs.getByRole("switch", { name: "On this machine" });
    await here.click();
    await docs.getByText("turned off on this machine", { exact: true }).waitFor();
    expect(await here.getAttribute("aria-checked")).toBe("false");
    expect((await server.json<McpMachineState>("GET", `/v1/mcps/${created.body.id}/machine-state`)).body).toMatchObject({ disabledHere: true, enabled: false });
    await here.click();
    await badge(docs, "Connected").waitFor();

    // A harness's own server: read-only, probed only on request.
    const claude = card(page, "claude-files");
    expect(await claude.getByRole("button", { name: "Edit" }).count()).toBe(0);
    expect(await claude.getByRole("switch").count()).toBe(0);
    await claude.getByText(join(machine.path, "home", ".claude.json"), { exact: true }).waitFor();
    expect(await claude.locator(".mcp-names li").allInnerTexts()).toEqual(["TOKEN set"]);
    await claude.getByRole("button", { name: "Probe now" }).click();
    await badge(claude, "Connected").waitFor();
    await claude.getByText(/^2 tools/).waitFor();

    // An HTTP server behind OAuth: added with a header, it needs a sign-in; the tab it opens comes back signed in.
    await page.getByRole("button", { name: "Add a server" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name", { exact: true }).fill("remote");
    await form.getByLabel("Transport").selectOption("http");
    await form.getByLabel("URL").fill(oauthServer.url);
    await form.getByRole("button", { name: "Add a header" }).click();
    await form.getByLabel("Header name").fill("X-Team");
    await form.getByLabel("Header value").fill(SECRET);
    await form.getByLabel("Sign-in").selectOption("oauth");
    await form.getByRole("button", { name: "Add server" }).click();
    const remote = card(page, "remote");
    await badge(remote, "Needs sign-in").waitFor();
    await remote.getByText("OAuth, scope files:read").waitFor();
    expect(await remote.locator(".mcp-names li").allInnerTexts()).toEqual(["X-Team set"]);
    await remote.getByRole("button", { name: "Sign in" }).click();
    const link = remote.getByRole("link", { name: "Open the sign-in page" });
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener");
    expect(new URL((await link.getAttribute("href"))!).origin).toBe(new URL(oauthServer.url).origin);
    const [tab] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await tab.getByText("Signed in", { exact: true }).waitFor();
    await tab.close();
    await badge(remote, "Connected").waitFor();
    await remote.getByRole("status").getByText("Signed in.").waitFor();
    expect(oauthServer.oauth.tokensIssued).toHaveLength(1);
    expect(await page.content()).not.toContain(SECRET);
    expect(await overflowsSideways(page)).toBe(false);
    await screenshot(page, "console-mcp-desktop");

    expect(problems).toEqual([]);
    await page.context().close();
  });
});

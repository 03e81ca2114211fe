import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type ApiClient, apiClient } from "./api-client.ts";
import { devBuild } from "./compiled-build.ts";
import { startServe, type ServeProcess } from "./cli-process.ts";
import { launchSystemChromium, type SystemBrowser } from "./browser.ts";
import { makeTempDir } from "./temp-dir.ts";
import { until } from "./poll.ts";
import { SCRIPTED_AGENT } from "../fixtures/scripted-agent/in-process.ts";

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
const SCREENSHOTS = join(import.meta.dir, "..", "..", "docs", "screenshots");

export interface ConsoleUnderTest {
  serve: ServeProcess;
  binary: string;
  home: ReturnType<typeof makeTempDir>;
  adminToken(): string;
  /** Calls the server's interface with the admin token, as another client would; a refusal throws. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /**
   * A page at a viewport that records any script error or CSP refusal it reports in `problems`; `touch`
   * makes it a phone's (a touch screen, a coarse pointer, the page's own viewport width).
   */
  open(viewport: { width: number; height: number }, path?: string, touch?: boolean): Promise<{ page: Page; problems: string[] }>;
  /** A page already signed in with the admin token (kept in the browser as a person's would be). */
  openSignedIn(viewport: { width: number; height: number }, path?: string, touch?: boolean): Promise<{ page: Page; problems: string[] }>;
  /** Kills the server (SIGKILL, as a crash would) and starts it again on the same port and data dir. */
  crashAndRestart(): Promise<void>;
  /** Kills the server (SIGKILL): the page's requests find nobody listening until `restart`. */
  crash(): Promise<void>;
  /** Starts the server crashed by `crash` again, on the same port and data dir. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The page is wider than the screen: a phone would scroll it sideways. */
export const overflowsSideways = (page: Page) => page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth");

/** Opens the Menu where the screen folds the top bar's links behind it (once the signed-in console is drawn). */
async function openMenuIfFolded(page: Page): Promise<void> {
  await page.locator(".top-bar").waitFor();
  const menu = page.getByRole("button", { name: "Menu" });
  if (await menu.isVisible()) await menu.click();
}

/** Opens a page of the console from its navigation, through the Menu where the screen folds the links behind it. */
export async function goToPage(page: Page, label: string): Promise<void> {
  await openMenuIfFolded(page);
  await page.getByRole("link", { name: label, exact: true }).click();
}

/** Signs out from the top bar, through the Menu where the screen folds it. */
export async function signOut(page: Page): Promise<void> {
  await openMenuIfFolded(page);
  await page.getByRole("button", { name: "Sign out" }).click();
}

/** What Chromium logs for a request the server refused: the page shows the sentence, the log the status. */
export const refusedRequest = (status: string) => `Failed to load resource: the server responded with a status of ${status}`;

/** Writes docs/screenshots/<name>.png when ATRIUM_SCREENSHOTS=1; otherwise nothing. */
export const screenshot = (page: Page, name: string) =>
  process.env.ATRIUM_SCREENSHOTS ? page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) }) : undefined;

/**
 * The console as people meet it: the compiled binary serving it from a data dir of its own, and a real
 * Chromium (Debian's) showing it. `env` is added to the server's environment; `config` is its config.json;
 * `chromiumArgs` go on Chromium's command line.
 */
/** Another server beside the console's: the same binary, a data dir and machineId (`mch-<name>`) of its own, to pair with. */
export interface SecondServer {
  serve: ServeProcess;
  api: ApiClient;
  stop(): Promise<void>;
}

export async function startSecondServer(binary: string, name: string): Promise<SecondServer> {
  const home = makeTempDir(`atrium-${name}-`);
  writeFileSync(join(home.path, "config.json"), JSON.stringify({ machineId: `mch-${name}`, machineName: name }));
  const serve = await startServe([binary], home.path).catch((error: unknown) => {
    home.remove();
    throw error;
  });
  const stop = async () => {
    serve.child.kill("SIGTERM");
    await serve.child.exited;
    home.remove();
  };
  return { serve, api: apiClient(serve.url, readFileSync(join(home.path, "token"), "utf8").trim()), stop };
}

export async function startConsole(env: Record<string, string> = {}, config?: Record<string, unknown>, chromiumArgs: string[] = []): Promise<ConsoleUnderTest> {
  const home = makeTempDir("atrium-home-");
  if (config) writeFileSync(join(home.path, "config.json"), JSON.stringify(config));
  let binary = "";
  let serve: ServeProcess | undefined;
  let chromium: SystemBrowser | undefined;
  const close = async () => {
    await chromium?.close();
    serve?.child.kill("SIGTERM");
    await serve?.child.exited;
    home.remove();
  };
  try {
    // One compile for the whole browser suite (and none when the sources have not changed since).
    binary = await devBuild();
    serve = await startServe([binary], home.path, undefined, env);
    chromium = await launchSystemChromium(chromiumArgs);
  } catch (failure) {
    await close();
    throw failure;
  }
  const browser = chromium.browser;
  const url = serve.url;
  const adminToken = () => readFileSync(join(home.path, "token"), "utf8").trim();
  const open = async (viewport: { width: number; height: number }, path = "/", touch = false) => {
    const context = await browser.newContext({ viewport, hasTouch: touch, isMobile: touch });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().includes("401")) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(url + path);
    return { page, problems };
  };
  const openSignedIn = async (viewport: { width: number; height: number }, path = "/", touch = false) => {
    const opened = await open(viewport, "/", touch);
    await opened.page.evaluate((token: string) => localStorage.setItem("atrium.token", token), adminToken());
    await opened.page.goto(url + path);
    // A fragment alone does not load the page again; the reload starts it with the token kept.
    await opened.page.reload();
    return opened;
  };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${adminToken()}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  };
  const crash = async () => {
    serve!.child.kill("SIGKILL");
    await serve!.child.exited;
  };
  const restart = async () => {
    serve = await startServe([binary], home.path, ["--port", new URL(url).port], env);
    under.serve = serve;
  };
  const crashAndRestart = async () => {
    await crash();
    await restart();
  };
  const under: ConsoleUnderTest = { serve, binary, home, adminToken, api, open, openSignedIn, crashAndRestart, crash, restart, close };
  return under;
}

/**
 * The console with the scripted agent as harness `scripted` (shown as `name`), running `script`: the
 * script and the sessions it keeps are in `dir`.
 */
export function startScriptedConsole(dir: string, script: unknown, name = "Scripted agent"): Promise<ConsoleUnderTest> {
  const scriptFile = join(dir, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script));
  return startConsole(
    { SCRIPTED_AGENT_SCRIPT: scriptFile, SCRIPTED_AGENT_STATE: join(dir, "state"), SCRIPTED_AGENT_BUN: process.execPath },
    { harnesses: [{ id: "scripted", name, executable: SCRIPTED_AGENT }] },
  );
}

/** Waits until the service worker controls the page and the page has kept the reads at `paths`: a reload then opens without the server. */
export async function keptForOffline(page: Page, paths: string[]): Promise<void> {
  await until(
    () => page.evaluate<boolean>("navigator.serviceWorker.controller !== null"),
    (controlled) => controlled,
  );
  await until(
    () => page.evaluate<string[]>(`caches.open("atrium-reads-v1").then((cache) => cache.keys()).then((keys) => keys.map((key) => new URL(key.url).pathname))`),
    (kept) => paths.every((path) => kept.includes(path)),
  );
}

/** A permission's options as Claude Code offers them: "Always Allow" first, the riskiest choice on top. */
export const CLAUDE_PERMISSION_OPTIONS = [
  { optionId: "allow_always", name: "Always Allow", kind: "allow_always" },
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

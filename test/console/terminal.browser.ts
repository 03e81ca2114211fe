import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session } from "../../src/schemas/sessions.ts";
import type { PtyTerminal } from "../../src/schemas/terminals.ts";
import { type ConsoleUnderTest, DESKTOP, overflowsSideways, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { SCRIPTED_AGENT } from "../sessions/session-helpers.ts";

// A project's terminal in the console on a phone (390×844, a touch screen): the emulator loads only when
// a terminal is opened, a command typed runs in a real shell on the server, the key bar's sticky Ctrl
// interrupts a program, and a reload attaches again and replays what the terminal printed. Then on a
// desktop: a shell's exit code, closing a terminal, and a command the scripted agent runs shown read-only.
let atrium: ConsoleUnderTest;
let project: Project;
const agentDir = makeTempDir("atrium-terminal-agent-");
/** The agent's command waits for this file before it prints its last line, so the test sees it running first. */
const GO_FILE = join(agentDir.path, "go");
const AGENT_COMMAND = ["-c", `echo compiling; while [ ! -f ${GO_FILE} ]; do sleep 0.1; done; printf '\\033[32mbuilt\\033[0m\\n'`];

beforeAll(async () => {
  const scriptFile = join(agentDir.path, "script.json");
  writeFileSync(scriptFile, JSON.stringify({ prompts: { build: [{ terminal: { command: "sh", args: AGENT_COMMAND } }, { chunk: "Building." }] } }));
  atrium = await startConsole(
    // A plain prompt whatever the machine's shell is.
    {
      SHELL: "/bin/sh",
      PS1: "$ ",
      SCRIPTED_AGENT_SCRIPT: scriptFile,
      SCRIPTED_AGENT_STATE: join(agentDir.path, "state"),
      SCRIPTED_AGENT_BUN: process.execPath,
    },
    { harnesses: [{ id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT }] },
  );
  project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  agentDir.remove();
});

/** The emulator's screen as text, a line per row. */
const screenText = (page: Page) => page.locator(".terminal-screen .xterm-rows").innerText();

async function waitForScreen(page: Page, pattern: RegExp): Promise<void> {
  await until(
    () => screenText(page),
    (text) => pattern.test(text),
    15_000,
  ).catch(async () => {
    throw new Error(`no ${pattern} on the terminal's screen: ${JSON.stringify(await screenText(page))}`);
  });
}

/** The `/proc/<pid>/stat` fields after the command name: state, ppid, pgrp, session, tty_nr, tpgid… */
function statFields(pid: string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Whether `sleep 100`, started by a shell of this server, runs as its terminal's foreground group (so a Ctrl-C reaches it). */
function sleepInForeground(serverPid: number): boolean {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8") !== "sleep\u0000100\u0000") return false;
        const [, shell, group, , , foreground] = statFields(pid);
        return group === foreground && statFields(shell!)[1] === String(serverPid);
      } catch {
        return false;
      }
    });
}

test("on a phone: a project's terminal runs `echo hi`, the key bar's Ctrl interrupts `sleep 100`, a reload replays the output", async () => {
  const { page, problems } = await atrium.openSignedIn(PHONE, "/#/projects", true);
  const emulatorLoads: string[] = [];
  page.on("request", (request) => {
    if (request.url().endsWith("/terminal-emulator.js")) emulatorLoads.push(request.url());
  });
  const card = page.locator(`[data-project="${project.id}"]`);
  await card.waitFor();
  expect(emulatorLoads).toEqual([]);

  await card.getByRole("link", { name: "Terminal" }).tap();
  await page.getByRole("heading", { name: `Terminal · ${project.name}` }).waitFor();
  const emulator = page.getByRole("region", { name: `Terminal in ${project.name}` });
  await emulator.locator(".xterm").waitFor();
  expect(emulatorLoads).toHaveLength(1);
  await waitForScreen(page, /^\$ /m);

  await emulator.tap();
  await page.keyboard.type("echo hi");
  await page.keyboard.press("Enter");
  await waitForScreen(page, /^hi$/m);

  // Every key of the bar has a name and a thumb's size.
  const keyBar = page.getByRole("toolbar", { name: "Terminal keys" });
  for (const name of [
    "Escape",
    "Control, for the next key",
    "Tab",
    "Left arrow",
    "Up arrow",
    "Right arrow",
    "Down arrow",
    "Vertical bar",
    "Tilde",
    "Copy",
    "Paste",
  ]) {
    expect(await keyBar.getByRole("button", { name, exact: true }).count()).toBe(1);
  }
  for (const key of await keyBar.getByRole("button").all()) {
    const box = (await key.boundingBox())!;
    expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
  }

  await page.keyboard.type("sleep 100; echo slept");
  await page.keyboard.press("Enter");
  await until(
    async () => sleepInForeground(atrium.serve.child.pid),
    (running) => running,
  );
  const control = page.getByRole("button", { name: "Control, for the next key" });
  await control.tap();
  await expect(control.getAttribute("aria-pressed")).resolves.toBe("true");
  await page.keyboard.type("c");
  await expect(control.getAttribute("aria-pressed")).resolves.toBe("false");
  await page.keyboard.type("echo status=$?.");
  await page.keyboard.press("Enter");
  await waitForScreen(page, /^status=130\.$/m);
  expect(await screenText(page)).not.toMatch(/^slept$/m);
  expect(await overflowsSideways(page)).toBe(false);
  await screenshot(page, "terminal-phone");

  // Turned sideways, the screen is fitted again and the shell told its new size.
  const [upright] = await atrium.api<PtyTerminal[]>("GET", `/v1/terminals?projectId=${encodeURIComponent(project.id)}`);
  await page.setViewportSize({ width: PHONE.height, height: PHONE.width });
  await page.keyboard.type("stty size");
  await page.keyboard.press("Enter");
  const sideways = await until(
    () => atrium.api<PtyTerminal>("GET", `/v1/terminals/${upright!.id}`),
    (terminal) => terminal.cols > upright!.cols && terminal.rows < upright!.rows,
  );
  await waitForScreen(page, new RegExp(`^${sideways.rows} ${sideways.cols}$`, "m"));
  await page.setViewportSize(PHONE);

  // Attached again after a reload: the same terminal, its output replayed.
  await page.reload();
  await page
    .getByRole("region", { name: `Terminal in ${project.name}` })
    .locator(".xterm")
    .waitFor();
  await waitForScreen(page, /^status=130\.$/m);
  expect(await screenText(page)).toMatch(/^hi$/m);
  expect(await page.getByRole("list", { name: "Terminals" }).getByRole("listitem").count()).toBe(1);
  expect(problems).toEqual([]);
  await page.context().close();
}, 120_000);

test("a shell that exits says its code; closing it with its × leaves no terminal listed", async () => {
  const place = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Exits" });
  const { page, problems } = await atrium.openSignedIn(DESKTOP, `/#/projects/${encodeURIComponent(place.id)}/terminal`);
  const emulator = page.getByRole("region", { name: "Terminal in Exits" });
  await emulator.locator(".xterm").waitFor();
  await waitForScreen(page, /^\$ /m);
  await emulator.click();
  await page.keyboard.type("exit 3");
  await page.keyboard.press("Enter");
  await page.getByRole("status").filter({ hasText: "exited (code 3)" }).waitFor();
  const terminals = page.getByRole("list", { name: "Terminals" }).getByRole("listitem");
  await expect(terminals.getByRole("button", { name: "Terminal 1 · exited (code 3)" }).count()).resolves.toBe(1);

  await page.getByRole("button", { name: "Close Terminal 1" }).click();
  await until(
    () => terminals.count(),
    (count) => count === 0,
  );
  await page.getByText("No terminal is shown").waitFor();
  expect(await atrium.api<PtyTerminal[]>("GET", `/v1/terminals?projectId=${encodeURIComponent(place.id)}`)).toEqual([]);
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

test("on a phone: 24-bit colours show; Copy takes the selection to the clipboard, Paste types the clipboard; where it cannot be read, a field takes the text", async () => {
  const place = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Clipboard" });
  const path = `/#/projects/${encodeURIComponent(place.id)}/terminal`;
  const { page, problems } = await atrium.openSignedIn(PHONE, path, true);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: atrium.serve.url });
  const emulator = page.getByRole("region", { name: "Terminal in Clipboard" });
  await emulator.locator(".xterm").waitFor();
  await waitForScreen(page, /^\$ /m);
  await emulator.tap();
  await page.keyboard.type("echo copied-$((3+4))");
  await page.keyboard.press("Enter");
  await waitForScreen(page, /^copied-7$/m);
  // A colour outside the palette is a style attribute on its cell (the console's CSP allows those).
  await page.keyboard.type("printf '\\033[38;2;255;128;0mtruecolor\\033[0m\\n'");
  await page.keyboard.press("Enter");
  const coloured = emulator.locator(".xterm-rows span").filter({ hasText: /^truecolor$/ });
  await coloured.waitFor();
  const color = await coloured.evaluate(
    (cell) => (globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }).getComputedStyle(cell).color,
  );
  expect(color).toBe("rgb(255, 128, 0)");

  const keyBar = page.getByRole("toolbar", { name: "Terminal keys" });
  await keyBar.getByRole("button", { name: "Copy", exact: true }).tap();
  await page.getByText("Select text in the terminal first.").waitFor();
  // A double click selects the word under it, as in any terminal.
  // (The typed line reads `copied-$((3+4))`: only the output's row says copied-7.)
  const row = (await emulator.locator(".xterm-rows > div").filter({ hasText: "copied-7" }).boundingBox())!;
  // Drawn as boxes in the selection layer; a busy machine may split the two clicks, so until it shows.
  await until(
    async () => {
      await page.mouse.dblclick(row.x + 4, row.y + row.height / 2);
      return emulator.locator(".xterm-selection > div").count();
    },
    (boxes) => boxes > 0,
  );
  await keyBar.getByRole("button", { name: "Copy", exact: true }).tap();
  await page.getByText("Copied.").waitFor();
  expect(await page.evaluate("navigator.clipboard.readText()")).toBe("copied-7");

  await page.evaluate('navigator.clipboard.writeText("echo pasted-$((2+3))")');
  await keyBar.getByRole("button", { name: "Paste", exact: true }).tap();
  await waitForScreen(page, /^\$ echo pasted-\$\(\(2\+3\)\)/m);
  await page.keyboard.press("Enter");
  await waitForScreen(page, /^pasted-5$/m);
  await page.context().close();

  // A browser that does not let the page read the clipboard: the text goes into a field, then the terminal.
  const refused = await atrium.openSignedIn(PHONE, path, true);
  await refused.page.getByRole("region", { name: "Terminal in Clipboard" }).locator(".xterm").waitFor();
  await refused.page.getByRole("toolbar", { name: "Terminal keys" }).getByRole("button", { name: "Paste", exact: true }).tap();
  const field = refused.page.getByRole("textbox", { name: "Text to paste into the terminal" });
  await field.fill("echo typed-$((5+5))\n");
  await refused.page.locator(".paste-field").getByRole("button", { name: "Paste", exact: true }).tap();
  await waitForScreen(refused.page, /^typed-10$/m);
  await expect(field.count()).resolves.toBe(0);
  expect([...problems, ...refused.problems]).toEqual([]);
  await refused.page.context().close();
}, 60_000);

test("a command the agent runs opens from its tool card in the terminal view, read-only, and shows its output as it ends", async () => {
  const place = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Agent builds" });
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: place.id, harnessId: "scripted", title: "Build it" });
  await atrium.api("POST", `/v1/sessions/${encodeURIComponent(session.id)}/prompts`, { text: "build" });
  const { page, problems } = await atrium.openSignedIn(DESKTOP, `/#/sessions/${encodeURIComponent(session.id)}`);
  const card = page.locator('.tool-card[data-kind="execute"]');
  await card.locator("summary").click();
  await card.getByRole("link", { name: "Open in terminal view" }).click();

  const command = `sh ${AGENT_COMMAND.join(" ")}`;
  await page.getByRole("heading", { name: `Agent's terminal · ${command}` }).waitFor();
  const screen = page.getByRole("region", { name: `Output of ${command}` });
  await screen.locator(".xterm").waitFor();
  await waitForScreen(page, /^compiling$/m);
  await page.getByRole("status").filter({ hasText: "Running" }).waitFor();
  // Nothing typed reaches it, and there is no key bar to type with.
  await screen.click();
  await page.keyboard.type("ignored");
  expect(await page.getByRole("toolbar", { name: "Terminal keys" }).count()).toBe(0);

  // The command's end is a `session.tasks` event: the page reads the output again and writes what it added.
  writeFileSync(GO_FILE, "");
  await page.getByRole("status").filter({ hasText: "exited (code 0)" }).waitFor();
  await waitForScreen(page, /^compiling\nbuilt$/m);
  expect(await screenText(page)).not.toContain("ignored");
  // Its colour came through: the escape is drawn, not printed.
  expect(await screenText(page)).not.toContain("[32m");
  await screenshot(page, "terminal-agent");
  expect(problems).toEqual([]);
  await page.context().close();
}, 60_000);

test("served beyond loopback over plain http, the terminal view says why terminals are off and how to turn them on", async () => {
  const plain = await startConsole({ SHELL: "/bin/sh" }, { host: "0.0.0.0" });
  try {
    const place = await plain.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Plain" });
    const { page, problems } = await plain.openSignedIn(PHONE, `/#/projects/${encodeURIComponent(place.id)}/terminal`, true);
    await page.getByRole("heading", { name: "Terminal · Plain" }).waitFor();
    const reason = page.getByText(/terminals are off: this server listens beyond loopback without TLS/);
    await reason.waitFor();
    expect(await reason.innerText()).toContain('"terminalsOverPlainHttp": true');
    // Nothing else: no empty screen, no button to open a terminal that would be refused again.
    await until(
      () => page.locator(".terminal-screen").count(),
      (screens) => screens === 0,
    );
    expect(await page.getByRole("button", { name: "New terminal" }).count()).toBe(0);
    await screenshot(page, "terminal-refused-phone");
    // The refused POST is the page's one expected error in the browser's console.
    expect(problems.filter((problem) => !problem.includes("403"))).toEqual([]);
    await page.context().close();
  } finally {
    await plain.close();
  }
}, 120_000);

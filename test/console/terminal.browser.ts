import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import { type ConsoleUnderTest, overflowsSideways, PHONE, screenshot, startConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";

// A project's terminal in the console on a phone (390×844, a touch screen): the emulator loads only when
// a terminal is opened, a command typed runs in a real shell on the server, the key bar's sticky Ctrl
// interrupts a program, and a reload attaches again and replays what the terminal printed.
let atrium: ConsoleUnderTest;
let project: Project;

beforeAll(async () => {
  // A plain prompt whatever the machine's shell is.
  atrium = await startConsole({ SHELL: "/bin/sh", PS1: "$ " });
  project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
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

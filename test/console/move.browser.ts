import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PairingCode } from "../../src/schemas/machines.ts";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, PHONE, screenshot, startConsole, type SecondServer, startSecondServer } from "../helpers/console-browser.ts";
import { git, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// "Move to…" on a phone: the console's server (studio) paired with a second real server (laptop) on
// loopback, each with a clone of one repository; the session moves, and the page says where it went,
// with a link to it there.
let atrium: ConsoleUnderTest;
let laptop: SecondServer;
const repos = makeTempDir("atrium-move-repos-");

beforeAll(async () => {
  atrium = await startConsole({}, { machineId: "mch-studio", machineName: "studio" });
  laptop = await startSecondServer(atrium.binary, "laptop");
  const code = await laptop.api.json<PairingCode>("POST", "/v1/machines/pairing-codes");
  await atrium.api("POST", "/v1/machines/pair", { url: laptop.serve.url, code: code.body.code });
}, 120_000);

afterAll(async () => {
  await laptop?.stop();
  await atrium?.close();
  repos.remove();
});

describe("Move to… in the console", () => {
  test("on a phone: the session moves to the paired machine, and the page says where it went", async () => {
    const { bare } = makeBareRepo(repos.path);
    const project = await atrium.api<Project>("POST", "/v1/projects", { folderPath: makeCheckout(repos.path, bare, "studio") });
    await laptop.api.json("POST", "/v1/projects", { folderPath: makeCheckout(repos.path, bare, "laptop") });
    // The echo harness is ready once the first scan has run.
    const session = (await until(
      () =>
        atrium
          .api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "echo", title: "Moving talk", runLocation: "worktree" })
          .catch(() => null),
      (created) => created !== null,
    ))!;
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "hello" });
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (read) => read.conversation.length === 2 && !read.conversation[1]!.isGenerating,
    );
    writeFileSync(join(session.cwd, "draft.txt"), "not committed\n");

    const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${session.id}`, true);
    await page.getByRole("heading", { name: "Moving talk" }).waitFor();
    await page.getByText("Manage").tap();
    await page.getByLabel("Move to…").selectOption({ label: "laptop" });
    const move = page.getByRole("button", { name: "Move", exact: true });
    expect((await move.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await screenshot(page, "console-move-to-phone");
    await move.tap();
    const notice = page.getByRole("status").filter({ hasText: "Moved to laptop" });
    await notice.waitFor();
    await page.locator(".standing").getByText("Moved", { exact: true }).waitFor();
    // A moved session takes no prompt here: the composer gives way to the notice.
    expect(await page.getByLabel("Prompt", { exact: true }).count()).toBe(0);
    await screenshot(page, "console-moved-phone");

    const moved = (await atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`)).session.move!;
    expect(await notice.textContent()).toContain(moved.sessionId);
    // Both servers are on this browser's machine: the notice links to the session on the other one.
    const there = notice.getByRole("link", { name: "Open it on laptop" });
    expect(await there.getAttribute("href")).toBe(`${laptop.serve.url}/#/sessions/${moved.sessionId}`);
    expect((await there.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    const arrived = await laptop.api.json<SessionDetail>("GET", `/v1/sessions/${moved.sessionId}`);
    expect(arrived.body.conversation.map((item) => item.text)[0]).toBe("hello");
    expect(readFileSync(join(arrived.body.session.cwd, "draft.txt"), "utf8")).toBe("not committed\n");
    expect(git(["ls-files", "--others"], arrived.body.session.cwd)).toBe("draft.txt");
    expect(problems).toEqual([]);
  }, 120_000);
});

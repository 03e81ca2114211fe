import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import { type ConsoleUnderTest, PHONE, screenshot, startScriptedConsole } from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// Forking a conversation at a reply, and continuing it with another agent, from a phone: the new
// session opens with the copied conversation, its agent gets it with the first prompt (the scripted
// agent says what it received), and the status says it was handed over.
let atrium: ConsoleUnderTest;
const agentDir = makeTempDir("atrium-fork-agent-");

beforeAll(async () => {
  atrium = await startScriptedConsole(agentDir.path, { prompts: { "*": [{ describePrompt: true }] } });
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  agentDir.remove();
});

/** A session of the scripted agent with a turn per prompt, each answered before the next. */
async function conversation(title: string, prompts: string[]): Promise<SessionDetail> {
  const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: title });
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted", title });
  for (const [index, text] of prompts.entries()) {
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text });
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (read) => read.conversation.length === (index + 1) * 2 && !read.conversation.at(-1)!.isGenerating,
    );
  }
  return atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`);
}

const openedSessionId = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace("#/sessions/", ""));

/** Sends a prompt from the composer and waits for its reply to end; returns the reply's text. */
async function send(page: Page, text: string): Promise<string> {
  await page.getByLabel("Prompt", { exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).tap();
  const reply = page.locator(".message.assistant").last();
  await page.locator(".message.user").last().getByText(text).waitFor();
  await reply.and(page.locator(":not([data-generating])")).waitFor();
  return (await reply.locator(".message-text").textContent()) ?? "";
}

describe("fork and continue in the console", () => {
  test("on a phone: fork from the first reply, and continue with another agent; each new session's agent gets the conversation", async () => {
    const source = await conversation("Forked talk", ["one", "two"]);
    const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${source.session.id}`, true);
    await page.getByRole("heading", { name: "Forked talk" }).waitFor();
    const forkFirst = page.locator(`[data-item="${source.conversation[1]!.id}"]`).getByRole("button", { name: /^Fork from here/ });
    expect((await forkFirst.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await forkFirst.tap();
    await page.waitForURL((url) => !url.hash.includes(source.session.id));
    const forkId = openedSessionId(page);
    await page.locator(".message").nth(1).waitFor();
    expect(await page.locator(".message").count()).toBe(2);
    const received = await send(page, "next");
    expect(received).toContain("<conversation-so-far>");
    expect(received).toContain("User:\none\nAssistant:\ntext:one");
    expect(received).not.toContain("two");
    await page.locator(".status").getByText("was handed to the agent with this prompt").waitFor();
    await page.evaluate("scrollTo(0, 0)");
    await screenshot(page, "console-fork-phone");
    expect((await atrium.api<SessionDetail>("GET", `/v1/sessions/${forkId}`)).session.parentSessionId).toBe(source.session.id);

    // Continue the source with the built-in echo agent, from its Manage menu.
    await page.goto(`${atrium.serve.url}/#/sessions/${source.session.id}`);
    await page.getByRole("heading", { name: "Forked talk" }).waitFor();
    await page.getByText("Manage").tap();
    const agent = page.getByLabel("Continue with…");
    await agent.selectOption({ label: "Echo (built in)" });
    expect((await page.getByRole("button", { name: "Continue", exact: true }).boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await screenshot(page, "console-continue-with-phone");
    await page.getByRole("button", { name: "Continue", exact: true }).tap();
    await page.waitForURL((url) => !url.hash.includes(source.session.id));
    const echoed = await send(page, "go on");
    expect(echoed).toContain("text:two");
    expect(echoed).toContain("go on");
    await page.locator(".status").getByText("was handed to the agent with this prompt").waitFor();
    expect((await atrium.api<SessionDetail>("GET", `/v1/sessions/${openedSessionId(page)}`)).session.harnessId).toBe("echo");
    expect(problems).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { Project } from "../../src/schemas/projects.ts";
import type { Session, SessionDetail } from "../../src/schemas/sessions.ts";
import {
  CLAUDE_PERMISSION_OPTIONS,
  type ConsoleUnderTest,
  DESKTOP,
  PHONE,
  overflowsSideways,
  screenshot,
  startScriptedConsole,
} from "../helpers/console-browser.ts";
import { until } from "../helpers/poll.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// A real Claude Code turn, replayed by the scripted agent with the updates claude-agent-acp 0.49 sends
// (its tools.js): a Read whose output is the file in a bare fence, a Write asked about with its diff, an
// Edit of old_string → new_string, a Bash whose output comes back in a ```console fence, and a markdown
// answer with code. The console must show them in the order they came, each call as a card.
const ROOT = "/work/demo";
const OLD_LINE = "const port = 3000;";
const NEW_LINE = "const port = Number(process.env.PORT ?? 8080);";
const HELLO = "Hello from Claude.\n";
const PROMPT = "Make hello.txt and read the port from the environment";

const call = (toolCallId: string, fields: Record<string, unknown>) => ({ update: { sessionUpdate: "tool_call", toolCallId, status: "pending", ...fields } });
const done = (toolCallId: string, fields: Record<string, unknown> = {}) => ({
  update: { sessionUpdate: "tool_call_update", toolCallId, status: "completed", ...fields },
});
const text = (value: string) => ({ type: "content", content: { type: "text", text: value } });
const writeDiff = { type: "diff", path: `${ROOT}/hello.txt`, oldText: null, newText: HELLO };

const CLAUDE_TURN = [
  { chunk: "I'll look at the server first.\n\n" },
  call("read-1", {
    title: "Read src/server.ts",
    kind: "read",
    locations: [{ path: `${ROOT}/src/server.ts`, line: 1 }],
    rawInput: { file_path: `${ROOT}/src/server.ts` },
  }),
  done("read-1", { content: [text(`\`\`\`\nimport { serve } from "./serve.ts";\n${OLD_LINE}\nserve({ port });\n\`\`\``)] }),
  { chunk: "The port is fixed. I'll write **hello.txt**, then change it:\n\n" },
  call("write-1", {
    title: "Write hello.txt",
    kind: "edit",
    content: [writeDiff],
    locations: [{ path: `${ROOT}/hello.txt` }],
    rawInput: { file_path: `${ROOT}/hello.txt`, content: HELLO },
  }),
  {
    permission: {
      title: "Write hello.txt",
      options: CLAUDE_PERMISSION_OPTIONS,
      toolCall: { toolCallId: "write-1", kind: "edit", content: [writeDiff], locations: [{ path: `${ROOT}/hello.txt` }] },
    },
  },
  done("write-1"),
  { chunk: "\n\n" },
  call("edit-1", {
    title: "Edit src/server.ts",
    kind: "edit",
    content: [{ type: "diff", path: `${ROOT}/src/server.ts`, oldText: OLD_LINE, newText: NEW_LINE }],
    locations: [{ path: `${ROOT}/src/server.ts` }],
  }),
  done("edit-1"),
  call("bash-1", { title: "npm test", kind: "execute", content: [text("Run the tests")], rawInput: { command: "npm test", description: "Run the tests" } }),
  done("bash-1", { content: [text("```console\n\u001b[32m✓\u001b[39m server reads PORT (3 ms)\n\u001b[31m✗\u001b[39m nothing failed\n```")] }),
  { chunk: `Done. The server now reads \`PORT\`:\n\n\`\`\`ts\n${NEW_LINE}\n\`\`\`\n` },
];

/** A turn that reads and runs, each call a card; `waiting`: its run is left going at a gate the test never opens. */
const readAndRun = (name: string, waiting = false) => [
  { chunk: `Turn ${name}: reading first.\n\n` },
  { toolCall: { id: `${name}-read`, title: `Read ${name}.ts`, kind: "read" } },
  { toolUpdate: { id: `${name}-read`, status: "completed", output: "its text" } },
  { chunk: "Then running it.\n\n" },
  { toolCall: { id: `${name}-run`, title: `Run ${name}` } },
  ...(waiting ? [{ gate: "never" }] : [{ toolUpdate: { id: `${name}-run`, status: "completed", output: "ok" } }, { chunk: `Turn ${name} done.` }]),
];
const FINISHED_TURNS = ["one", "two", "three"];

let atrium: ConsoleUnderTest;
const agentDir = makeTempDir("atrium-replies-");

beforeAll(async () => {
  const quickRead = [
    { chunk: "Reading it.\n\n" },
    call("read-2", { title: "Read src/server.ts", kind: "read", locations: [{ path: `${ROOT}/src/server.ts` }] }),
    done("read-2", { content: [text(`\`\`\`\n${OLD_LINE}\n\`\`\``)] }),
    { chunk: "That was the file." },
  ];
  const prompts = {
    [PROMPT]: CLAUDE_TURN,
    "read the server": quickRead,
    ...Object.fromEntries(FINISHED_TURNS.map((name) => [`turn ${name}`, readAndRun(name)])),
    "turn four": readAndRun("four", true),
    "*": [{ chunk: "No code here, just words." }],
  };
  atrium = await startScriptedConsole(agentDir.path, { prompts }, "Claude (recorded)");
}, 120_000);

afterAll(async () => {
  await atrium?.close();
  agentDir.remove();
});

const lastReply = (page: Page) => page.locator(".message.assistant").last();

/** What a reply shows, in order: `text` for a run of its words, `tool:<kind>` for a call's card. */
const replyShape = (page: Page) =>
  lastReply(page)
    .locator(".reply-body > *")
    .evaluateAll((children) => children.map((child) => (child.classList.contains("tool-card") ? `tool:${child.getAttribute("data-kind")}` : "text")));

const highlighterLoads = (page: Page) =>
  page.evaluate<number>(`performance.getEntriesByType("resource").filter((entry) => entry.name.endsWith("/highlighter.js")).length`);

async function openSession(viewport: { width: number; height: number }, title: string) {
  const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: title });
  const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted", title });
  const opened = await atrium.openSignedIn(viewport, `/#/sessions/${encodeURIComponent(session.id)}`);
  await opened.page.getByRole("heading", { name: title }).waitFor();
  return { ...opened, session };
}

async function send(page: Page, prompt: string): Promise<void> {
  await page.getByLabel("Prompt", { exact: true }).fill(prompt);
  await page.getByRole("button", { name: "Send" }).click();
}

describe("a real agent's reply in the console", () => {
  test("on a phone: text and tool calls in the order they came, each call a card opening to its diff, output or code", async () => {
    const { page, problems } = await openSession(PHONE, "Claude turn");
    await send(page, "say something");
    await lastReply(page).getByText("No code here, just words.").waitFor();
    await lastReply(page).and(page.locator(":not([data-generating])")).waitFor();
    // A page with no code never loads the highlighter.
    expect(await highlighterLoads(page)).toBe(0);

    await send(page, PROMPT);
    const question = page.getByRole("form", { name: "The agent asks" });
    // What it asks about is shown before the answer: the file it writes, as a diff.
    await question
      .getByRole("figure", { name: `Changes to ${ROOT}/hello.txt` })
      .locator("tr.diff-added")
      .waitFor();
    // Three buttons, each saying what it does, the safe choice first; one tap answers.
    expect(await question.locator(".option-button").allTextContents()).toEqual(["Allow Allow once", "Reject", "Always Allow"]);
    await question.getByRole("button", { name: "Allow Allow once" }).click();
    await question.waitFor({ state: "detached" });
    const reply = lastReply(page);
    await reply.and(page.locator(":not([data-generating])")).waitFor();

    expect(
      await until(
        () => replyShape(page),
        (shape) => shape.length === 8,
      ),
    ).toEqual(["text", "tool:read", "text", "tool:edit", "text", "tool:edit", "tool:execute", "text"]);
    const cards = reply.locator(".tool-card");
    expect(await cards.locator(".tool-title").allTextContents()).toEqual(["Read src/server.ts", "Write hello.txt", "Edit src/server.ts", "npm test"]);
    expect(await cards.locator(".tool-status").allTextContents()).toEqual(["Done", "Done", "Done", "Done"]);
    // The Bash touches no file: three cards name theirs.
    expect(await cards.locator(".tool-files").allTextContents()).toEqual(["server.ts", "hello.txt", "server.ts"]);
    // Closed, a card is one line: its content is not drawn until it is opened.
    expect(await reply.locator(".tool-call-view").count()).toBe(0);

    // The Write: a new file, its line added.
    await cards.nth(1).locator("summary").click();
    const written = cards.nth(1).getByRole("figure", { name: `Changes to ${ROOT}/hello.txt` });
    await written.locator("tr.diff-added").waitFor();
    expect(await written.locator("tr.diff-added").allTextContents()).toEqual(["1+Hello from Claude."]);
    // The Edit: the old line and the new, the words that changed marked and the code coloured.
    await cards.nth(2).locator("summary").click();
    const edited = cards.nth(2).getByRole("figure", { name: `Changes to ${ROOT}/src/server.ts` });
    await edited.locator("tr.diff-removed").waitFor();
    expect(await edited.locator("tr.diff-removed").allTextContents()).toEqual([`1−${OLD_LINE}`]);
    expect(await edited.locator("tr.diff-added").allTextContents()).toEqual([`1+${NEW_LINE}`]);
    expect(await edited.locator("tr.diff-added mark").count()).toBeGreaterThan(0);
    await edited.locator("tr.diff-added .hljs-keyword").first().waitFor();
    // The Bash: its command, and its output in its terminal colours, out of the console fence.
    await cards.nth(3).locator("summary").click();
    expect(await cards.nth(3).locator(".tool-command").textContent()).toBe("$ npm test");
    const output = cards.nth(3).locator(".tool-output");
    expect(await output.textContent()).toBe("✓ server reads PORT (3 ms)\n✗ nothing failed");
    expect(await output.locator("span.ansi-fg-2").textContent()).toBe("✓");
    expect(await output.locator("span.ansi-fg-1").textContent()).toBe("✗");
    // The Read: the file's text as code, coloured in its file's language.
    await cards.nth(0).locator("summary").click();
    await cards.nth(0).locator("code[data-highlighted=true] .hljs-keyword").first().waitFor();

    // The answer's own code block is coloured too, by the highlighter loaded once.
    const answerCode = reply.locator(".reply-body > .markdown").last().locator(".code-block code");
    await answerCode.locator(".hljs-keyword").first().waitFor();
    expect(await answerCode.textContent()).toBe(NEW_LINE);
    expect(await highlighterLoads(page)).toBe(1);
    expect(await overflowsSideways(page)).toBe(false);

    await cards.nth(0).locator("summary").click();
    await cards.nth(3).locator("summary").click();
    // From the reply's first card, below the page's sticky top bar.
    await cards.nth(0).evaluate((card) => card.scrollIntoView({ block: "start" }));
    await page.evaluate("scrollBy(0, -110)");
    await screenshot(page, "console-reply-tool-cards-phone");
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a desktop: a reloaded session draws the same reply from its stored details, the edit side by side", async () => {
    const { page, problems, session } = await openSession(DESKTOP, "Claude turn again");
    await send(page, PROMPT);
    await page.getByRole("form", { name: "The agent asks" }).getByRole("button", { name: "Always Allow" }).click();
    await lastReply(page).and(page.locator(":not([data-generating])")).waitFor();
    const live = await until(
      () => replyShape(page),
      (shape) => shape.length === 8,
    );

    await page.reload();
    await page.getByRole("heading", { name: "Claude turn again" }).waitFor();
    await lastReply(page).locator(".tool-card").nth(3).waitFor();
    expect(await replyShape(page)).toEqual(live);
    const edit = lastReply(page).locator(".tool-card").nth(2);
    await edit.locator("summary").click();
    // The conversation's column is wide enough for two columns of code.
    await edit.locator("table.diff-split").waitFor();
    expect(await edit.locator("td.diff-removed").allTextContents()).toEqual([OLD_LINE]);
    expect(await edit.locator("td.diff-added").allTextContents()).toEqual([NEW_LINE]);
    await lastReply(page).locator(".code-block .hljs-keyword").first().waitFor();
    await screenshot(page, "console-reply-tool-cards-desktop");
    expect(problems).toEqual([]);
    await page.context().close();
    await atrium.api("DELETE", `/v1/sessions/${session.id}`);
  });

  test("on a phone, a long session opens at its newest reply with that reply's cards drawn, and scrolling up stays up", async () => {
    const project = await atrium.api<Project>("POST", "/v1/projects", { isScratch: true, name: "Long session" });
    const session = await atrium.api<Session>("POST", "/v1/sessions", { projectId: project.id, harnessId: "scripted", title: "Long session" });
    const words = Array.from({ length: 40 }, (_, index) => `Line ${index} of a long prompt that wraps on a phone.`).join("\n\n");
    for (let turn = 0; turn < 12; turn++) await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: `${turn}\n\n${words}` });
    await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: "read the server" });
    await until(
      () => atrium.api<SessionDetail>("GET", `/v1/sessions/${session.id}`),
      (detail) => detail.promptQueue.length === 0 && detail.conversation.length === 26 && !detail.conversation.at(-1)!.isGenerating,
      60_000,
    );
    const { page, problems } = await atrium.openSignedIn(PHONE, `/#/sessions/${encodeURIComponent(session.id)}`);
    const newest = lastReply(page);
    await newest.getByText("That was the file.").waitFor();
    // Its card is read because the page opened at it: the replies far above it are not read at all.
    await newest.locator(".tool-card").waitFor();
    expect(await page.locator(".reply-body[data-details=unread]").count()).toBeGreaterThan(5);
    // The page grew after it scrolled (each reply drawn as it mounts): it is still at the bottom.
    await until(
      () => page.evaluate<number>("document.documentElement.scrollHeight - innerHeight - scrollY"),
      (left) => left < 2,
    );
    expect(await newest.isVisible()).toBe(true);
    // The reader scrolls up (a wheel scrolls smoothly: wait for it to settle); the page stays there.
    await page.mouse.wheel(0, -3000);
    const { after: settled } = await until(
      async () => {
        const before = await page.evaluate<number>("scrollY");
        await Bun.sleep(200);
        return { before, after: await page.evaluate<number>("scrollY") };
      },
      (read) => read.before === read.after,
    );
    await Bun.sleep(500);
    expect(await page.evaluate<number>("scrollY")).toBe(settled);
    expect(await page.evaluate<number>("document.documentElement.scrollHeight - innerHeight - scrollY")).toBeGreaterThan(2000);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  test("on a phone, after a server restart every tool card is there again without scrolling, the interrupted reply's too", async () => {
    const { page, problems, session } = await openSession(PHONE, "Restarted");
    for (const name of FINISHED_TURNS) await atrium.api("POST", `/v1/sessions/${session.id}/prompts`, { text: `turn ${name}` });
    await lastReply(page).getByText("Turn three done.").waitFor();
    // The service worker keeps the shell: a reload while the server is down opens the page as kept.
    await until(
      () => page.evaluate<boolean>("navigator.serviceWorker.controller !== null"),
      (controlled) => controlled,
    );
    await send(page, "turn four");
    await page.locator('[data-tool-call="four-run"]').waitFor();
    const everyCall = [...FINISHED_TURNS, "four"].flatMap((name) => [`${name}-read`, `${name}-run`]);
    /** The page shows every call's card, each reply's details read; the test never scrolls. */
    const everyCardShown = async () => {
      const shown = await until(
        () => page.locator("[data-tool-call]").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-tool-call"))),
        (calls) => calls.length >= everyCall.length,
      );
      expect(shown).toEqual(everyCall);
      expect(await page.locator(".reply-body[data-details=unread]").count()).toBe(0);
    };
    await everyCardShown();

    // In the middle of the turn: the page's stream resumes and the reply ends, interrupted.
    await atrium.crashAndRestart();
    await lastReply(page).getByText("Interrupted by a server restart").waitFor();
    await everyCardShown();

    // Reloaded while the server is down: what the device kept, then all of it again once the server is back.
    await atrium.crash();
    await page.reload();
    await page
      .getByRole("status")
      .getByText(/^Offline/)
      .waitFor();
    await atrium.restart();
    await page.getByRole("status").waitFor({ state: "detached" });
    await lastReply(page).getByText("Interrupted by a server restart").waitFor();
    await everyCardShown();
    // Chromium reports the streams the crashes cut, the reads while the server was down and its worker's update check then.
    const downtime = /net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)|An unknown error occurred when fetching the script/;
    expect(problems.filter((problem) => !downtime.test(problem))).toEqual([]);
    await page.context().close();
  });
});

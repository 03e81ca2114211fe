/**
 * "Write the message" by a session's agent (issue 39): asked in a one-off ACP session of its own beside
 * the user's conversation, which gains nothing (no item, no event, no title, no question); the agent may
 * not act; a failure or the timeout falls back to the summary and says why; a turn that runs goes on.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_MESSAGE_TIMEOUT_MS, DIFF_BUDGET_CHARS } from "../../src/git/agent-commit-message.ts";
import { CommitMessage } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { git, makeBareRepo } from "../helpers/git-fixtures.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { idle, lastReply, startSessionServer, type SessionTestServer } from "../sessions/session-helpers.ts";
import type { Step } from "../fixtures/scripted-agent/agent-app.ts";

/** How the prompt the agent is asked with begins. */
const ASKED = "Write a git commit message";

let t: SessionTestServer | undefined;
let dir: ReturnType<typeof makeTempDir> | undefined;
afterEach(async () => {
  await t?.cleanup();
  dir?.remove();
  t = dir = undefined;
});

/** A server whose scripted agent answers the one-off question with `asked`, a session in a repository with README.md's change staged. */
async function sessionWithStagedChange(
  asked: Step[],
  options: { clock?: ManualClock; prompts?: Record<string, Step[]>; initialize?: "crash"; agents?: "processes" } = {},
) {
  const server = await startSessionServer({ agents: options.agents ?? "in-process", ...(options.clock ? { tuning: { clock: options.clock } } : {}) });
  t = server;
  dir = makeTempDir("atrium-commit-message-");
  server.script({ closeSession: true, initialize: options.initialize, prompts: options.prompts ?? {}, promptPrefixes: { [ASKED]: asked } });
  const repo = makeBareRepo(dir.path).work;
  writeFileSync(join(repo, "README.md"), "# repo\nmore\n");
  git(["add", "README.md"], repo);
  const project = await server.json<Project>("POST", "/v1/projects", { folderPath: repo });
  const session = await server.json<{ id: string }>("POST", "/v1/sessions", {
    projectId: project.body.id,
    harnessId: "scripted",
    runLocation: "projectDirectory",
  });
  const base = `/v1/sessions/${session.body.id}`;
  const write = (body?: unknown) => server.json<CommitMessage & { error?: string }>("POST", `${base}/git/commit-message`, body);
  return { server, repo, id: session.body.id, base, write, project: project.body };
}

/** The one-off sessions the agent was told to cancel or close, in order ("close scripted-…"). */
const sessionEnds = (server: SessionTestServer) => {
  const log = join(server.stateDir, "session-ends.log");
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
};

test("the agent's message from the staged diff, tidied; the user's conversation, events and title gain nothing; the one-off session is closed", async () => {
  const { server, id, write } = await sessionWithStagedChange(
    [
      { title: "Not the session's title" },
      { usage: { used: 900, size: 1000 } },
      { plan: [{ content: "a plan of the one-off session", priority: "high", status: "pending" }] },
      { commands: [{ name: "aside", description: "a command of the one-off session" }] },
      { chunk: "**Commit message:**\n```text\nDescribe more in the README\n\n" },
      { chunk: "It says more now.\n```\n" },
    ],
    { prompts: { hello: [{ chunk: "hi there" }] } },
  );
  await server.json("POST", `/v1/sessions/${id}/prompts`, { text: "hello" });
  const before = await server.until(id, (detail) => idle(detail) && lastReply(detail)?.text === "hi there");
  const eventsBefore = (await server.json<unknown[]>("GET", `/v1/sessions/${id}/events`)).body;

  const written = await write();
  expect(written.status).toBe(200);
  assertMatchesSchema(CommitMessage, written.body);
  expect(written.body).toEqual({ message: "Describe more in the README\n\nIt says more now.", source: "agent" });

  const after = await server.detail(id);
  expect(after.conversation).toEqual(before.conversation);
  expect(after.session).toEqual(before.session);
  expect((await server.json<unknown[]>("GET", `/v1/sessions/${id}/events`)).body).toEqual(eventsBefore);
  // Closed (it ended its turn: nothing to cancel), and it was not the user's session.
  const ends = await until(
    async () => sessionEnds(server),
    (lines) => lines.length > 0,
  );
  expect(ends).toEqual([expect.stringMatching(/^close scripted-/)]);
  expect(ends[0]).not.toBe(`close ${after.session.agentSessionId}`);
});

test("the prompt is the instruction and the staged diff; past the budget the diff is cut and every staged file listed", async () => {
  const { repo, write } = await sessionWithStagedChange([{ describePrompt: true }]);
  const small = await write({ source: "agent" });
  expect(small.body.source).toBe("agent");
  expect(small.body.message).toStartWith(`text:${ASKED}`);
  expect(small.body.message).toContain("diff --git a/README.md b/README.md");
  expect(small.body.message).toEndWith("\n+more");

  writeFileSync(join(repo, "big.txt"), `${"a line of a large file\n".repeat(4_000)}`);
  writeFileSync(join(repo, "z.txt"), "last\n");
  git(["add", "big.txt", "z.txt"], repo);
  const { message } = (await write()).body;
  expect(message).toContain(`[The diff is cut here, at ${DIFF_BUDGET_CHARS.toLocaleString("en")} of its`);
  expect(message).toContain("- modified README.md (+1 -0)\n- added big.txt (+4000 -0)\n- added z.txt (+1 -0)");
  expect(message).not.toContain("+last");
  expect(message.length).toBeLessThan(DIFF_BUDGET_CHARS + 1_000);
});

test("the agent may not act: its permission request is rejected, its form declined, its command refused; the session shows no question", async () => {
  const { server, repo, id, write } = await sessionWithStagedChange([
    {
      permission: {
        title: "Edit README.md",
        options: [
          { optionId: "yes", name: "Allow", kind: "allow_once" },
          { optionId: "no", name: "Reject", kind: "reject_once" },
        ],
      },
    },
    { chunk: " / " },
    { elicit: { message: "Which style?", properties: { style: { type: "string" } } } },
    { chunk: " / " },
    { terminal: { command: "touch", args: ["touched"] } },
  ]);
  const { message, source } = (await write()).body;
  expect(source).toBe("agent");
  expect(message).toStartWith('chose no / {"action":"decline"} / refused: ');
  expect(message).toContain("may not run commands");
  expect(existsSync(join(repo, "touched"))).toBe(false);
  const after = await server.detail(id);
  expect(after.pendingQuestion).toBeNull();
  expect(after.session.sidebarState).toBe("idle");
});

test("an agent that fails leaves the summary with the reason; `summary` does not ask it; nothing staged is 409", async () => {
  const { repo, write } = await sessionWithStagedChange([{ fail: { code: -32603, message: "Internal error", data: { message: "the model is overloaded" } } }]);
  const failed = await write();
  assertMatchesSchema(CommitMessage, failed.body);
  expect(failed.body).toEqual({
    message: "Update README.md\n\n- modified README.md (+1 -0)\n",
    source: "summary",
    agentError: "Internal error: the model is overloaded",
  });
  expect((await write({ source: "summary" })).body).toEqual({ message: "Update README.md\n\n- modified README.md (+1 -0)\n", source: "summary" });

  git(["commit", "--quiet", "-m", "more"], repo);
  const nothing = await write();
  expect(nothing.status).toBe(409);
  expect(nothing.body.error).toContain("nothing is staged");
});

test("an agent that cannot start leaves the summary with the reason", async () => {
  const { write } = await sessionWithStagedChange([{ chunk: "never asked" }], { initialize: "crash", agents: "processes" });
  const answer = await write();
  expect(answer.body).toMatchObject({ source: "summary", message: "Update README.md\n\n- modified README.md (+1 -0)\n" });
  expect(answer.body.agentError).toContain("the agent could not open the session");
});

test("a location has no agent: the summary by default, and with `agentError` when the agent was asked for", async () => {
  const { server, write, project } = await sessionWithStagedChange([{ chunk: "never asked" }]);
  const location = `/v1/projects/${project.id}/locations/${project.locations[0]!.id}/git/commit-message`;
  expect((await server.json<CommitMessage>("POST", location)).body).toEqual({
    message: "Update README.md\n\n- modified README.md (+1 -0)\n",
    source: "summary",
  });
  const asked = await server.json<CommitMessage>("POST", location, { source: "agent" });
  expect(asked.body).toMatchObject({ source: "summary", agentError: expect.stringContaining("only a session's agent") });
  expect((await write({ source: "nobody" })).status).toBe(400);
});

test("a turn that runs goes on undisturbed beside the question; an agent that does not answer in time is cancelled and closed, and the summary comes", async () => {
  const clock = new ManualClock();
  const { server, id, write } = await sessionWithStagedChange([{ mark: "asked" }, { hang: true }], {
    clock,
    prompts: { work: [{ chunk: "working" }, { gate: "go" }, { chunk: " done" }] },
  });
  await server.json("POST", `/v1/sessions/${id}/prompts`, { text: "work" });
  await server.until(id, (detail) => lastReply(detail)?.text === "working");

  const answer = write();
  await until(
    async () => existsSync(join(server.stateDir, "marks", "asked")),
    (asked) => asked,
  );
  await clock.advance(AGENT_MESSAGE_TIMEOUT_MS);
  const timedOut = await answer;
  expect(timedOut.body).toEqual({
    message: "Update README.md\n\n- modified README.md (+1 -0)\n",
    source: "summary",
    agentError: `the agent did not answer within ${AGENT_MESSAGE_TIMEOUT_MS / 1000} s`,
  });
  const ends = await until(
    async () => sessionEnds(server),
    (lines) => lines.length === 2,
  );
  expect(ends).toEqual([expect.stringMatching(/^cancel scripted-/), expect.stringMatching(/^close scripted-/)]);

  expect((await server.detail(id)).session.sidebarState).toBe("working");
  server.agents.openGate("go");
  const finished = await server.until(id, idle);
  expect(lastReply(finished)).toMatchObject({ text: "working done", stopReason: "end_turn" });
  expect(finished.conversation.map((item) => item.role)).toEqual(["user", "assistant"]);
});

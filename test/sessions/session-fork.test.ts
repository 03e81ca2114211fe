import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git, makeBareRepo } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Session } from "../../src/schemas/sessions.ts";
import { lastReply, SCRIPTED_AGENT, type DetailBody, type SessionBody } from "./session-helpers.ts";
import { cleanUpAfterEach, cleanups, quirkServer, type QuirkServer } from "./quirk-server.ts";

// POST /v1/sessions/{id}/fork: a new session with a copy of the conversation up to a message, whose
// agent gets it (session/fork, or the handoff with its first prompt); the scripted agent describes
// each prompt it receives, block by block.

cleanUpAfterEach();

const DESCRIBE = { "*": [{ describePrompt: true }] };

/** A server with the scripted agent as two harnesses (`scripted`, `other`), and a session of three turns. */
async function threeTurns(script: Record<string, unknown> = {}): Promise<{ s: QuirkServer; source: DetailBody }> {
  const harnesses = [
    { id: "scripted", name: "Scripted agent", executable: SCRIPTED_AGENT },
    { id: "other", name: "Other agent", executable: SCRIPTED_AGENT },
  ];
  const s = await quirkServer({ loadSession: true, prompts: DESCRIBE, ...script }, { agents: "in-process", server: { config: { harnesses } } });
  const session = await s.newSession();
  for (const text of ["one", "two", "three"]) expect(lastReply(await s.turn(session.id, text))!.text).toBe(`text:${text}`);
  return { s, source: await s.detail(session.id) };
}

async function fork(s: QuirkServer, id: string, body: Record<string, unknown>): Promise<SessionBody> {
  const forked = await s.t.json<SessionBody>("POST", `/v1/sessions/${id}/fork`, body);
  expect(forked.status, JSON.stringify(forked.body)).toBe(201);
  assertMatchesSchema(Session, forked.body);
  return forked.body;
}

const conversationOf = (detail: DetailBody) => detail.conversation.map((item) => [item.role, item.text, item.stopReason]);

describe("fork at a message", () => {
  test("a fork at the second turn: its first request holds exactly the first two turns; the original is unchanged", async () => {
    // The agent offers session/fork, but that forks all of it: a fork at an earlier message is handed over.
    const { s, source } = await threeTurns({ forkSession: true });
    const secondReply = source.conversation[3]!;
    const forked = await fork(s, source.session.id, { itemId: secondReply.id });
    expect(forked).toMatchObject({ parentSessionId: source.session.id, harnessId: "scripted", agentSessionId: null, cwd: source.session.cwd });
    const copied = await s.detail(forked.id);
    expect(conversationOf(copied)).toEqual(conversationOf(source).slice(0, 4));
    expect(copied.conversation.map((item) => item.id)).not.toContain(secondReply.id);

    const next = await s.turn(forked.id, "next");
    const [history, prompt, ...more] = lastReply(next)!.text.split("|");
    expect([prompt, more]).toEqual(["text:next", []]);
    expect(history).toContain("## Turn 1\nUser:\none\nAssistant:\ntext:one\n");
    expect(history).toContain("## Turn 2\nUser:\ntwo\nAssistant:\ntext:two\n");
    expect(history).not.toContain("Turn 3");
    expect(history).not.toContain("three");
    expect(next.session.status).toBe("the conversation Atrium kept (2 turns) was handed to the agent with this prompt");

    const original = await s.detail(source.session.id);
    expect(original.conversation).toEqual(source.conversation);
    expect(original.session).toEqual(source.session);
    // The copies hold their own text (a reply's is its source's deltas, which go with the source).
    expect((await s.t.json("DELETE", `/v1/sessions/${source.session.id}`)).status).toBe(200);
    expect(conversationOf(await s.detail(forked.id)).slice(0, 4)).toEqual(conversationOf(source).slice(0, 4));
  });

  test("a fork of the whole conversation on an agent that offers session/fork: the agent forks its session, nothing is handed over", async () => {
    const { s, source } = await threeTurns({ forkSession: true });
    const forked = await fork(s, source.session.id, {});
    const next = await s.turn(forked.id, "next");
    expect(lastReply(next)!.text).toBe("text:next");
    expect(next.session.agentSessionId).not.toBe(source.session.agentSessionId);
    expect(next.session.status).toBeNull();
    expect(conversationOf(next).slice(0, 6)).toEqual(conversationOf(source));
  });

  test("a fork of the whole conversation on an agent without session/fork: it is handed over", async () => {
    const { s, source } = await threeTurns();
    const forked = await fork(s, source.session.id, {});
    const next = await s.turn(forked.id, "next");
    expect(lastReply(next)!.text).toContain("## Turn 3\nUser:\nthree\nAssistant:\ntext:three\n");
    expect(lastReply(next)!.text).toEndWith("|text:next");
  });
});

describe("the fork's folder", () => {
  test("the source's own folder by default (its worktree stays the source's); a new worktree from the commit the source is on with runLocation worktree", async () => {
    const s = await quirkServer({ prompts: DESCRIBE }, { agents: "in-process" });
    const dir = makeTempDir("atrium-fork-");
    cleanups.push(() => dir.remove());
    const { work } = makeBareRepo(dir.path);
    const project = await s.t.json<{ id: string }>("POST", "/v1/projects", { folderPath: work });
    const created = await s.t.json<SessionBody>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "scripted", runLocation: "worktree" });
    const source = created.body;
    writeFileSync(join(source.cwd, "committed.txt"), "in the commit\n");
    git(["add", "committed.txt"], source.cwd);
    git(["-c", "user.name=T", "-c", "user.email=t@atrium.invalid", "commit", "--quiet", "-m", "the source's commit"], source.cwd);
    writeFileSync(join(source.cwd, "uncommitted.txt"), "left behind\n");

    const shared = await fork(s, source.id, {});
    expect(shared).toMatchObject({ cwd: source.cwd, worktreeName: source.worktreeName, workspaceId: source.workspaceId });
    // Deleting the fork leaves the source's worktree.
    expect((await s.t.json("DELETE", `/v1/sessions/${shared.id}`)).status).toBe(200);
    expect(existsSync(join(source.cwd, "uncommitted.txt"))).toBe(true);

    const apart = await fork(s, source.id, { runLocation: "worktree" });
    expect(apart.cwd).not.toBe(source.cwd);
    expect(git(["rev-parse", "HEAD"], apart.cwd)).toBe(git(["rev-parse", "HEAD"], source.cwd));
    expect(existsSync(join(apart.cwd, "committed.txt"))).toBe(true);
    expect(existsSync(join(apart.cwd, "uncommitted.txt"))).toBe(false);
    const home = await fork(s, source.id, { runLocation: "projectDirectory" });
    expect(home).toMatchObject({ cwd: work, worktreeName: null });
  });
});

describe("continue with another agent", () => {
  test("the same route with another harnessId: that agent's first request carries the conversation", async () => {
    const { s, source } = await threeTurns({ forkSession: true });
    const continued = await fork(s, source.session.id, { harnessId: "other" });
    expect(continued).toMatchObject({ harnessId: "other", parentSessionId: source.session.id, configSelections: {} });
    const next = await s.turn(continued.id, "go on");
    const text = lastReply(next)!.text;
    for (const turn of ["one", "two", "three"]) expect(text).toContain(`User:\n${turn}\nAssistant:\ntext:${turn}\n`);
    expect(text).toEndWith("|text:go on");
    // The other agent has it now: its next request goes alone.
    expect(lastReply(await s.turn(continued.id, "and then"))!.text).toBe("text:and then");
  });
});

describe("fork refusals: a clear error, and no session made", () => {
  test("404 for no such session; 400 for an item not in it, a bad runLocation or an unknown harness; 409 while a reply up to the item is written", async () => {
    const { s, source } = await threeTurns({ prompts: { ...DESCRIBE, wait: [{ gate: "go" }, { chunk: "done" }] } });
    const other = await s.newSession();
    const sessionsBefore = (await s.t.json<unknown[]>("GET", "/v1/sessions")).body.length;
    const refusal = async (id: string, body: Record<string, unknown>, status: number, error: RegExp) => {
      const answer = await s.t.json<{ error: string }>("POST", `/v1/sessions/${id}/fork`, body);
      expect(answer.status).toBe(status);
      assertMatchesSchema(ErrorBody, answer.body);
      expect(answer.body.error).toMatch(error);
    };
    await refusal("ses_missing", {}, 404, /ses_missing/);
    await refusal(other.id, { itemId: source.conversation[0]!.id }, 400, /itemId: session .* has no conversation item/);
    await refusal(source.session.id, { runLocation: "elsewhere" }, 400, /runLocation/);
    await refusal(source.session.id, { harnessId: "nobody" }, 404, /nobody/);

    await s.prompt(source.session.id, "wait");
    const writing = await s.until(source.session.id, (d) => d.conversation.length === 8);
    await refusal(source.session.id, {}, 409, /still being written/);
    // At an earlier message, the reply being written is not in the fork.
    await fork(s, source.session.id, { itemId: writing.conversation[5]!.id });
    s.scripted.openGate("go");
    expect((await s.t.json<unknown[]>("GET", "/v1/sessions")).body.length).toBe(sessionsBefore + 1);
  });
});

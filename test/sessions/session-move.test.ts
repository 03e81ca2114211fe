import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Session } from "../../src/schemas/sessions.ts";
import { git, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { FAST_MACHINES, pair } from "../helpers/machine-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { cleanUpAfterEach, cleanups, quirkServer, type QuirkServer } from "./quirk-server.ts";
import { lastReply, type DetailBody, type SessionBody } from "./session-helpers.ts";

// POST /v1/sessions/{id}/move between two real servers on loopback, paired as people pair them: the
// session continues on the other machine with its conversation, queue, goal, branch and changes.

cleanUpAfterEach();

const SCRIPT = {
  prompts: {
    // The goal's budget is spent by this turn once "next" waits behind it: "next" stays in the paused queue, and moves with it.
    big: [{ chunk: "working" }, { gate: "spend" }, { usage: { used: 1_600, size: 10_000 } }, { waitForCancel: true }],
    "*": [{ describePrompt: true }],
  },
};

async function machine(name: string): Promise<QuirkServer> {
  return quirkServer(SCRIPT, {
    agents: "in-process",
    server: { config: { machineId: `mch-${name}`, machineName: name }, tuning: { modules: { machines: FAST_MACHINES } } },
  });
}

/** Two paired machines, each with a clone of one repository as a project. */
async function twoMachines(options: { targetHasProject: boolean } = { targetHasProject: true }) {
  const [studio, laptop] = await Promise.all([machine("studio"), machine("laptop")]);
  await pair(studio.t, laptop.t);
  const dir = makeTempDir("atrium-move-");
  cleanups.push(() => dir.remove());
  const { bare } = makeBareRepo(dir.path);
  const project = async (s: QuirkServer, clone: string) =>
    (await s.t.json<{ id: string }>("POST", "/v1/projects", { folderPath: makeCheckout(dir.path, bare, clone) })).body.id;
  const projectId = await project(studio, "studio-clone");
  if (options.targetHasProject) await project(laptop, "laptop-clone");
  return { studio, laptop, projectId };
}

async function move(s: QuirkServer, id: string, machineId: string): Promise<{ status: number; body: SessionBody }> {
  const moved = await s.t.json<SessionBody>("POST", `/v1/sessions/${id}/move`, { machineId });
  if (moved.status === 200) assertMatchesSchema(Session, moved.body);
  else assertMatchesSchema(ErrorBody, moved.body);
  return moved;
}

const conversationOf = (detail: DetailBody) => detail.conversation.map((item) => [item.role, item.text, item.stopReason]);

describe("moving a session to a paired machine", () => {
  test("it continues there with its conversation, queued prompt, goal, branch commits and uncommitted changes; the source ends moved, linked to it", async () => {
    const { studio, laptop, projectId } = await twoMachines();
    const created = await studio.t.json<SessionBody>("POST", "/v1/sessions", { projectId, harnessId: "scripted", runLocation: "worktree" });
    const source = created.body;
    await studio.turn(source.id, "one");
    await studio.t.json("PUT", `/v1/sessions/${source.id}/goal`, { objective: "Ship it", tokenBudget: 1_000 });
    await studio.prompt(source.id, "big");
    await studio.prompt(source.id, "next");
    await studio.until(source.id, (d) => lastReply(d)?.text === "working" && d.promptQueue.length === 1);
    studio.scripted.openGate("spend");
    const paused = await studio.until(source.id, (d) => d.session.queuePaused && d.session.sidebarState === "idle");
    expect(paused.promptQueue.map((prompt) => prompt.text)).toEqual(["next"]);

    writeFileSync(join(source.cwd, "committed.txt"), "on the branch\n");
    git(["add", "committed.txt"], source.cwd);
    git(["commit", "--quiet", "-m", "the session's commit"], source.cwd);
    writeFileSync(join(source.cwd, "README.md"), "# repo\nchanged, not committed\n");
    writeFileSync(join(source.cwd, "untracked.txt"), "never added\n");
    const binary = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0x89, 0x50]);
    writeFileSync(join(source.cwd, "image.bin"), binary);
    const head = git(["rev-parse", "HEAD"], source.cwd);

    const moved = await move(studio, source.id, "mch-laptop");
    expect(moved.status).toBe(200);
    expect(moved.body.move).toMatchObject({ state: "moved", machineId: "mch-laptop", machineName: "laptop" });
    const arrivedId = moved.body.move!.sessionId;

    const arrived = await laptop.until(arrivedId, (d) => d.session.id === arrivedId);
    expect(conversationOf(arrived)).toEqual(conversationOf(paused));
    expect(arrived.promptQueue.map((prompt) => prompt.text)).toEqual(["next"]);
    expect(arrived.goal).toMatchObject({ objective: "Ship it", status: "budget_exhausted", tokensUsed: 1_600 });
    expect(arrived.session).toMatchObject({ queuePaused: true, title: paused.session.title, move: null, agentSessionId: null });
    expect(arrived.session.status).toContain(`moved here from studio (session ${source.id} there)`);
    const cwd = arrived.session.cwd;
    expect(git(["rev-parse", "HEAD"], cwd)).toBe(head);
    expect(git(["rev-parse", "--abbrev-ref", "HEAD"], cwd)).toBe(git(["rev-parse", "--abbrev-ref", "HEAD"], source.cwd));
    expect(readFileSync(join(cwd, "README.md"), "utf8")).toBe("# repo\nchanged, not committed\n");
    expect(readFileSync(join(cwd, "untracked.txt"), "utf8")).toBe("never added\n");
    expect(readFileSync(join(cwd, "image.bin"))).toEqual(binary);
    // Changed and untracked as they were, nothing staged.
    expect(git(["diff", "--name-only"], cwd)).toBe("README.md");
    expect(git(["diff", "--cached", "--name-only"], cwd)).toBe("");
    expect(git(["ls-files", "--others", "--exclude-standard"], cwd).split("\n")).toEqual(["image.bin", "untracked.txt"]);

    // The source keeps its files, takes no prompt, and its queue went with the session.
    const left = await studio.detail(source.id);
    expect(left.promptQueue).toEqual([]);
    expect(existsSync(join(source.cwd, "untracked.txt"))).toBe(true);
    const refused = await studio.t.json<{ error: string }>("POST", `/v1/sessions/${source.id}/prompts`, { text: "still here?" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(`moved to laptop (session ${arrivedId} there)`);
    // Nor any other change a move carries: it would be lost here, where the session no longer goes on.
    const changes: Array<[string, string, unknown]> = [
      ["PATCH", "", { title: "renamed here" }],
      ["PUT", "/goal", { objective: "another", tokenBudget: null }],
      ["DELETE", "/goal", undefined],
    ];
    for (const [method, path, body] of changes) {
      const change = await studio.t.json<{ error: string }>(method, `/v1/sessions/${source.id}${path}`, body);
      expect(change.status).toBe(409);
      expect(change.body.error).toContain("there");
    }
    expect((await studio.t.json("PATCH", `/v1/sessions/${source.id}`, { lastSeenAttentionSequence: 0 })).status).toBe(200);

    // Raising the budget there lets the queue go on: the agent there gets the conversation by handoff.
    await laptop.t.json("PUT", `/v1/sessions/${arrivedId}/goal`, { objective: "Ship it", tokenBudget: 50_000 });
    const answered = await laptop.until(arrivedId, (d) => d.conversation.length === paused.conversation.length + 2 && !lastReply(d)!.isGenerating);
    const [history, prompt] = lastReply(answered)!.text.split("|");
    expect(prompt).toBe("text:next");
    expect(history).toContain("User:\none\n");
    expect(answered.session.status).toContain("was handed to the agent with this prompt");

    const kinds = async (s: QuirkServer, id: string) =>
      (await s.t.json<Array<{ kind: string }>>("GET", `/v1/sessions/${id}/events`)).body.map((event) => event.kind);
    expect(await kinds(studio, source.id)).toContain("session.moved");
    expect(await kinds(laptop, arrivedId)).toEqual(expect.arrayContaining(["session.created", "session.imported"]));

    // And back to the studio, which still holds the session it was (its items among them).
    const back = await move(laptop, arrivedId, "mch-studio");
    expect(back.status).toBe(200);
    const home = await studio.detail(back.body.move!.sessionId);
    expect(conversationOf(home)).toEqual(conversationOf(answered));
    expect(readFileSync(join(home.session.cwd, "image.bin"))).toEqual(binary);
  }, 30_000);

  test("409 when the project has no location on the other machine (saying what to add), 404 for a machine not paired; the session stays, live", async () => {
    const { studio, projectId } = await twoMachines({ targetHasProject: false });
    const created = await studio.t.json<SessionBody>("POST", "/v1/sessions", { projectId, harnessId: "scripted" });
    await studio.turn(created.body.id, "one");
    const noLocation = await move(studio, created.body.id, "mch-laptop");
    expect(noLocation.status).toBe(409);
    expect((noLocation.body as unknown as { error: string }).error).toMatch(/add a location for project "studio-clone" on machine laptop/);
    const unknown = await move(studio, created.body.id, "mch-elsewhere");
    expect(unknown.status).toBe(404);
    // The calls between machines take a paired machine's token only, not a person's (the admin's here).
    for (const [method, path] of [
      ["GET", "/v1/machines/peer/moves/mov_x"],
      ["POST", "/v1/machines/peer/moves/mov_x/confirm"],
      ["POST", "/v1/machines/peer/moves/mov_x/abort"],
    ] as const) {
      const refused = await studio.t.json(method, path);
      expect(refused.status).toBe(403);
      assertMatchesSchema(ErrorBody, refused.body);
    }
    const after = await studio.detail(created.body.id);
    expect(after.session.move).toBeNull();
    expect(after.session.status).toContain("the move to laptop did not happen");
    expect(lastReply(await studio.turn(created.body.id, "two"))!.text).toContain("text:two");
  });

  test("409 while a turn runs: nothing moves", async () => {
    const { studio, projectId } = await twoMachines();
    studio.script({ prompts: { slow: [{ chunk: "working" }, { gate: "finish" }, { chunk: " done" }] } });
    const created = await studio.t.json<SessionBody>("POST", "/v1/sessions", { projectId, harnessId: "scripted" });
    await studio.prompt(created.body.id, "slow");
    await studio.until(created.body.id, (d) => lastReply(d)?.text === "working");
    const busy = await move(studio, created.body.id, "mch-laptop");
    expect(busy.status).toBe(409);
    expect((busy.body as unknown as { error: string }).error).toContain("a turn of the session is running");
    studio.scripted.openGate("finish");
    await studio.until(created.body.id, (d) => lastReply(d)?.text === "working done" && !lastReply(d)!.isGenerating);
    expect((await studio.detail(created.body.id)).session.move).toBeNull();
  });
});

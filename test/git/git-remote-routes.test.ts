/**
 * Push and pull from a client (issue 39), against a local bare repository standing in for the remote:
 * the remote's own words come back, a rejected push is 409, force is only ever with a lease, and a pull
 * is a fast-forward unless asked.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EventRecord } from "../../src/schemas/events.ts";
import { GitEvents, type GitProgress, RemoteResult } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { commitFiles, folderTemplate, git, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-git-remotes-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  cloned.remove();
  await t.stop();
});

const commitIn = (repo: string, file: string, content: string) => {
  writeFileSync(join(repo, file), content);
  git(["add", file], repo);
  git(["commit", "--quiet", "-m", `write ${file}`], repo);
};

/** A bare remote and a clone of it, with the repository's own identity for merges. */
const cloned = folderTemplate((folder) => {
  const { bare } = makeBareRepo(folder);
  const repo = makeCheckout(folder, bare, "clone");
  git(["config", "user.name", "Phone User"], repo);
  git(["config", "user.email", "phone@atrium.invalid"], repo);
});

/** A copy of that remote and its clone in the test's folder, the clone made a project. */
async function cloneOfRemote(): Promise<{ bare: string; repo: string; base: string }> {
  cloned.copyInto(dir.path);
  const [bare, repo] = [join(dir.path, "repo.git"), join(dir.path, "clone")];
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: repo });
  return { bare, repo, base: `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}` };
}

test("push: the current branch to its remote; a new branch with its upstream set; a rejection is 409 in the remote's words", async () => {
  const { bare, repo, base } = await cloneOfRemote();
  commitIn(repo, "a.txt", "a\n");
  const pushed = await t.json<RemoteResult>("POST", `${base}/git/push`, {});
  expect(pushed.status).toBe(200);
  assertMatchesSchema(RemoteResult, pushed.body);
  expect(pushed.body).toMatchObject({ remote: "origin", branch: "main", head: git(["rev-parse", "HEAD"], repo) });
  expect(git(["rev-parse", "main"], bare)).toBe(git(["rev-parse", "HEAD"], repo));

  git(["checkout", "--quiet", "-b", "topic"], repo);
  commitIn(repo, "t.txt", "t\n");
  expect((await t.json("POST", `${base}/git/push`, { setUpstream: true })).status).toBe(200);
  expect(git(["rev-parse", "--abbrev-ref", "topic@{upstream}"], repo)).toBe("origin/topic");

  // Someone else pushed to main: ours is behind, so the remote turns it away, and a lease on stale knowledge fails too.
  commitFiles(bare, { "theirs.txt": "theirs\n" }, "theirs");
  const theirs = git(["rev-parse", "main"], bare);
  git(["checkout", "--quiet", "main"], repo);
  commitIn(repo, "b.txt", "b\n");
  const rejected = await t.json<{ error: string }>("POST", `${base}/git/push`, {});
  expect(rejected.status).toBe(409);
  expect(rejected.body.error).toContain("[rejected]");
  expect(rejected.body.error).toContain("fetch first");
  const stale = await t.json<{ error: string }>("POST", `${base}/git/push`, { force: true });
  expect(stale.status).toBe(409);
  expect(stale.body.error).toContain("stale info");
  expect(git(["rev-parse", "main"], bare)).toBe(theirs);
  git(["fetch", "--quiet", "origin"], repo);
  expect((await t.json("POST", `${base}/git/push`, { force: true })).status).toBe(200);
  expect(git(["rev-parse", "main"], bare)).toBe(git(["rev-parse", "HEAD"], repo));

  // A hook of the remote that says no: its words, verbatim.
  const hook = join(bare, "hooks", "pre-receive");
  writeFileSync(hook, '#!/bin/sh\necho "policy: no pushes on Sunday" >&2\nexit 1\n');
  chmodSync(hook, 0o755);
  commitIn(repo, "c.txt", "c\n");
  const declined = await t.json<{ error: string }>("POST", `${base}/git/push`, {});
  expect(declined.status).toBe(409);
  expect(declined.body.error).toContain("policy: no pushes on Sunday");

  expect((await t.json("POST", `${base}/git/push`, { remote: "upstream" })).status).toBe(404);
  expect((await t.json("POST", `${base}/git/push`, { branch: "nope" })).status).toBe(404);
  git(["remote", "add", "gone", join(dir.path, "nowhere.git")], repo);
  const unreachable = await t.json<{ error: string }>("POST", `${base}/git/push`, { remote: "gone" });
  expect(unreachable.status).toBe(502);
  expect(unreachable.body.error).toContain("does not appear to be a git repository");
});

test("pull: a fast-forward; diverged is 409 unless a merge is asked; a conflict is undone", async () => {
  const { bare, repo, base } = await cloneOfRemote();
  commitFiles(bare, { "theirs.txt": "theirs\n" }, "theirs");
  const pulled = await t.json<RemoteResult>("POST", `${base}/git/pull`, {});
  expect(pulled.status).toBe(200);
  assertMatchesSchema(RemoteResult, pulled.body);
  expect(pulled.body.head).toBe(git(["rev-parse", "main"], bare));

  commitFiles(bare, { "theirs.txt": "theirs, again\n" }, "theirs again");
  commitIn(repo, "mine.txt", "mine\n");
  const mine = git(["rev-parse", "HEAD"], repo);
  const diverged = await t.json<{ error: string }>("POST", `${base}/git/pull`, {});
  expect(diverged.status).toBe(409);
  expect(diverged.body.error).toMatch(/fast-forward/i);
  expect(git(["rev-parse", "HEAD"], repo)).toBe(mine);
  const merged = await t.json<RemoteResult>("POST", `${base}/git/pull`, { mode: "merge" });
  expect(merged.status).toBe(200);
  expect(git(["rev-list", "--parents", "-n", "1", "HEAD"], repo).split(" ")).toHaveLength(3);

  commitFiles(bare, { "theirs.txt": "a conflict\n" }, "theirs conflicting");
  commitIn(repo, "theirs.txt", "mine conflicting\n");
  const before = git(["rev-parse", "HEAD"], repo);
  const conflict = await t.json<{ error: string }>("POST", `${base}/git/pull`, { mode: "rebase" });
  expect(conflict.status).toBe(409);
  expect(conflict.body.error).toContain("theirs.txt");
  expect(git(["rev-parse", "HEAD"], repo)).toBe(before);
  expect(git(["status", "--porcelain"], repo)).toBe("");
});

/** Enough new files that git reports each phase in several steps, and a fetch keeps them as a pack (past transfer.unpackLimit, 100). */
const manyFiles = (prefix: string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`${prefix}-${index}.txt`, `${prefix} ${index}\n`.repeat(50)]));

/** The git.progress events of the repository at `repo` since `after`, checked against their schema, then the git.changed that ended them. */
async function progressSince(after: number, repo: string): Promise<{ progress: GitProgress[]; kinds: string[] }> {
  const root = git(["rev-parse", "--show-toplevel"], repo);
  const events = (await replayedEvents(t, after)).filter((event: EventRecord) => event.subjectId === root);
  const progress = events.filter((event) => event.kind === "git.progress").map((event) => event.payload as GitProgress);
  for (const payload of progress) assertMatchesSchema(GitEvents["git.progress"], payload);
  return { progress, kinds: [...new Set(events.map((event) => event.kind))] };
}

/** Each phase's percents, in the order they came: none goes back. */
function expectSteadyPhases(progress: GitProgress[]): Map<string, number[]> {
  const phases = new Map<string, number[]>();
  for (const { phase, percent } of progress) if (percent !== null) phases.set(phase, [...(phases.get(phase) ?? []), percent]);
  for (const percents of phases.values()) expect(percents).toEqual(percents.toSorted((a, b) => a - b));
  return phases;
}

test("push and pull say their progress as git.progress events while they run, then git.changed; the answer keeps to what git said without it", async () => {
  const { bare, repo, base } = await cloneOfRemote();
  for (const [file, content] of Object.entries(manyFiles("mine"))) writeFileSync(join(repo, file), content);
  git(["add", "."], repo);
  git(["commit", "--quiet", "-m", "many files"], repo);
  const beforePush = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
  const pushed = await t.json<RemoteResult>("POST", `${base}/git/push`, {});
  expect(pushed.status).toBe(200);
  expect(pushed.body.output).not.toMatch(/Writing objects|Counting objects|Enumerating objects/);
  const push = await progressSince(beforePush, repo);
  expect(push.kinds).toEqual(["git.progress", "git.changed"]);
  expect(push.progress.every((each) => each.operation === "push" && each.repositoryRoot === git(["rev-parse", "--show-toplevel"], repo))).toBe(true);
  expect(expectSteadyPhases(push.progress).get("Writing objects")?.at(-1)).toBe(100);

  commitFiles(bare, manyFiles("theirs"), "their many files");
  const beforePull = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
  const pulled = await t.json<RemoteResult>("POST", `${base}/git/pull`, {});
  expect(pulled.status).toBe(200);
  expect(pulled.body.output).not.toMatch(/Receiving objects|remote: Counting objects/);
  const pull = await progressSince(beforePull, repo);
  expect(pull.kinds).toEqual(["git.progress", "git.changed"]);
  expect(pull.progress.every((each) => each.operation === "pull")).toBe(true);
  expect(expectSteadyPhases(pull.progress).get("Receiving objects")?.at(-1)).toBe(100);
});

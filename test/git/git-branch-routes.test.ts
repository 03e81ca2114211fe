/**
 * Branches and history from a client (issue 39): the local branches with their upstreams, a new branch,
 * a checkout that forces nothing, and the log a page at a time, on a clone of a local bare "remote".
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangeList } from "../../src/schemas/changes.ts";
import { Branch, BranchList, CommitLog } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { folderTemplate, git, makeBareRepo, makeCheckout } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-git-branches-");
});
afterEach(() => dir.remove());
afterAll(async () => {
  cloned.remove();
  await t.stop();
});

const commitIn = (repo: string, file: string, content: string, message: string) => {
  writeFileSync(join(repo, file), content);
  git(["add", file], repo);
  git(["commit", "--quiet", "-m", message], repo);
};

/** A clone of a bare remote, three commits ahead of it on main, the remote also having a branch `topic` the clone has not checked out. */
const cloned = folderTemplate((folder) => {
  const remote = makeBareRepo(folder);
  const repo = makeCheckout(folder, remote.bare, "clone");
  git(["branch", "topic"], repo);
  git(["push", "--quiet", "origin", "topic"], repo);
  git(["branch", "-D", "--quiet", "topic"], repo);
  for (const n of [1, 2, 3]) commitIn(repo, "a.txt", `version ${n}\n`, `change ${n}`);
});

/** A copy of that clone (and its remote) in the test's folder, made a project. */
async function clone(): Promise<{ repo: string; base: string }> {
  cloned.copyInto(dir.path);
  const repo = join(dir.path, "clone");
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: repo });
  return { repo, base: `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}` };
}

test("branches: listed with their upstreams; made at HEAD or elsewhere; names git would not take are refused", async () => {
  const { repo, base } = await clone();
  const listed = await t.json<BranchList>("GET", `${base}/git/branches`);
  expect(listed.status).toBe(200);
  assertMatchesSchema(BranchList, listed.body);
  expect(listed.body).toEqual({
    current: "main",
    head: git(["rev-parse", "HEAD"], repo),
    branches: [{ name: "main", head: git(["rev-parse", "HEAD"], repo), current: true, upstream: "origin/main", ahead: 3, behind: 0 }],
  });

  const made = await t.json<Branch>("POST", `${base}/git/branches`, { name: "feature/x" });
  expect(made.status).toBe(201);
  assertMatchesSchema(Branch, made.body);
  expect(made.body).toEqual({ name: "feature/x", head: git(["rev-parse", "HEAD"], repo), current: false, upstream: null, ahead: null, behind: null });
  const older = await t.json<Branch>("POST", `${base}/git/branches`, { name: "older", from: "HEAD~2" });
  expect(older.body.head).toBe(git(["rev-parse", "HEAD~2"], repo));

  const refusals: [unknown, number, string][] = [
    [{ name: "feature/x" }, 409, "already exists"],
    [{ name: "two..dots" }, 400, "is not a branch name git takes"],
    [{ name: "-f" }, 400, "is not a branch name git takes"],
    [{ name: "fine", from: "no-such-ref" }, 404, "from: no-such-ref names no commit"],
    [{ name: "fine", from: "--all" }, 404, "names no commit"],
  ];
  for (const [body, status, error] of refusals) {
    const answer = await t.json<{ error: string }>("POST", `${base}/git/branches`, body);
    expect({ body, status: answer.status }).toEqual({ body, status });
    expect(answer.body.error).toContain(error);
  }
  expect(git(["branch", "--format=%(refname:short)"], repo).split("\n")).toEqual(["feature/x", "main", "older"]);
});

test("checkout: a local branch, a remote's branch as a new tracking one; local changes in the way are 409 and kept", async () => {
  const { repo, base } = await clone();
  await t.json("POST", `${base}/git/branches`, { name: "older", from: "HEAD~2" });
  const switched = await t.json<ChangeList>("POST", `${base}/git/checkout`, { branch: "older" });
  expect(switched.status).toBe(200);
  expect(switched.body.branch).toBe("older");
  expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("version 1\n");

  writeFileSync(join(repo, "a.txt"), "mine, not committed\n");
  const inTheWay = await t.json<{ error: string }>("POST", `${base}/git/checkout`, { branch: "main" });
  expect(inTheWay.status).toBe(409);
  expect(inTheWay.body.error).toContain("would be overwritten by checkout");
  expect(readFileSync(join(repo, "a.txt"), "utf8")).toBe("mine, not committed\n");
  expect(git(["symbolic-ref", "--short", "HEAD"], repo)).toBe("older");

  git(["checkout", "--quiet", "--", "a.txt"], repo);
  const topic = await t.json<ChangeList>("POST", `${base}/git/checkout`, { branch: "topic" });
  expect(topic.status).toBe(200);
  expect(git(["rev-parse", "--abbrev-ref", "topic@{upstream}"], repo)).toBe("origin/topic");

  expect((await t.json("POST", `${base}/git/checkout`, { branch: "nowhere" })).status).toBe(404);
  for (const branch of ["--orphan", "*", "a..b"]) {
    const refused = await t.json<{ error: string }>("POST", `${base}/git/checkout`, { branch });
    expect({ branch, status: refused.status }).toEqual({ branch, status: 400 });
  }
});

test("the log comes a page at a time from the commit it started at; a repository without commits has none", async () => {
  const { repo, base } = await clone();
  const first = await t.json<CommitLog>("GET", `${base}/git/log?limit=2`);
  expect(first.status).toBe(200);
  assertMatchesSchema(CommitLog, first.body);
  expect(first.body.commits.map((commit) => commit.subject)).toEqual(["change 3", "change 2"]);
  expect(first.body.commits[0]).toMatchObject({ authorName: "Atrium Test", authorEmail: "test@atrium.invalid", parents: [git(["rev-parse", "HEAD~1"], repo)] });
  commitIn(repo, "b.txt", "later\n", "made between pages");
  const second = await t.json<CommitLog>("GET", `${base}/git/log?limit=2&cursor=${first.body.next}`);
  expect(second.body.commits.map((commit) => commit.subject)).toEqual(["change 1", "first"]);
  expect(second.body.next).toBeNull();
  const forged = Buffer.from(JSON.stringify(["--output=/tmp/x", "0"])).toString("base64url");
  expect((await t.json("GET", `${base}/git/log?cursor=${forged}`)).status).toBe(400);

  const fresh = join(dir.path, "fresh");
  mkdirSync(fresh);
  git(["init", "--quiet", fresh]);
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: fresh });
  const empty = await t.json<CommitLog>("GET", `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}/git/log`);
  expect(empty.body).toEqual({ head: null, commits: [], next: null });
  const noBranches = await t.json<BranchList>("GET", `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}/git/branches`);
  expect(noBranches.body.branches).toEqual([]);
});

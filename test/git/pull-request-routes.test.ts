/**
 * Pull requests from a client (issue 39) through `gh`: a fake `gh` on the server's PATH speaks gh's
 * public shapes (`pr create` prints the URL, `pr view --json` the fields asked for), so the tests see
 * what is passed to it and how its answers and refusals come back.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PullRequest } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { installFakeGh } from "../helpers/fake-gh.ts";
import { makeBareRepo } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
let bin: string;
let base: string;
let work: string;
const stateFile = () => join(bin, "state.json");
const state = () => JSON.parse(readFileSync(stateFile(), "utf8")) as { calls: Array<{ args: string[]; cwd: string }>; prs: Array<{ state: string }> };

beforeAll(async () => {
  dir = makeTempDir("atrium-pull-requests-");
  bin = join(dir.path, "bin");
  mkdirSync(bin);
  installFakeGh(bin);
  // Only the fake on PATH: a real gh on this machine is never asked.
  t = await startTestServer({ tuning: { modules: { projects: { env: { HOME: dir.path, PATH: bin } } } } });
  work = makeBareRepo(dir.path).work;
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: work });
  base = `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}`;
});
beforeEach(() => writeFileSync(stateFile(), JSON.stringify({ signedIn: true, calls: [], prs: [] })));
afterAll(async () => {
  await t.stop();
  dir.remove();
});

test("a pull request of the current branch is opened through gh and read back as GitHub has it", async () => {
  const opened = await t.json<PullRequest>("POST", `${base}/git/pull-requests`, {
    title: "From the phone",
    body: "Made on a train.",
    draft: true,
    base: "main",
  });
  expect(opened.status).toBe(201);
  assertMatchesSchema(PullRequest, opened.body);
  expect(opened.body).toEqual({
    number: 1,
    url: "https://github.com/octo/repo/pull/1",
    state: "open",
    title: "From the phone",
    headBranch: "main",
    baseBranch: "main",
    draft: true,
    review: null,
    checks: { passed: 0, failed: 0, pending: 0 },
  });
  const create = state().calls.find((call) => call.args[1] === "create")!;
  expect(create.args).toEqual(["pr", "create", "--head", "main", "--title", "From the phone", "--body", "Made on a train.", "--base", "main", "--draft"]);
  expect(create.cwd).toBe(work);

  const merged = state();
  // As gh words them: the review decision, and the head's check runs and commit statuses.
  Object.assign(merged.prs[0]!, {
    state: "MERGED",
    reviewDecision: "APPROVED",
    statusCheckRollup: [
      { __typename: "CheckRun", name: "test", status: "COMPLETED", conclusion: "SUCCESS" },
      { __typename: "CheckRun", name: "lint", status: "COMPLETED", conclusion: "SKIPPED" },
      { __typename: "CheckRun", name: "build", status: "IN_PROGRESS", conclusion: "" },
      { __typename: "StatusContext", context: "ci/legacy", state: "FAILURE" },
    ],
  });
  writeFileSync(stateFile(), JSON.stringify(merged));
  const read = await t.json<PullRequest>("GET", `${base}/git/pull-requests/1`);
  expect(read.status).toBe(200);
  assertMatchesSchema(PullRequest, read.body);
  expect(read.body).toMatchObject({ state: "merged", review: "approved", checks: { passed: 2, failed: 1, pending: 1 } });
  expect((await t.json("GET", `${base}/git/pull-requests/99`)).status).toBe(404);
  expect((await t.json("GET", `${base}/git/pull-requests/--web`)).status).toBe(400);
});

test("gh's refusals come back in its words; not signed in or not installed is a 409 that says what to do", async () => {
  expect((await t.json("POST", `${base}/git/pull-requests`, { title: "First" })).status).toBe(201);
  const again = await t.json<{ error: string }>("POST", `${base}/git/pull-requests`, { title: "Again" });
  expect(again.status).toBe(409);
  expect(again.body.error).toContain('a pull request for branch "main" into branch "main" already exists');

  writeFileSync(stateFile(), JSON.stringify({ signedIn: false, calls: [], prs: [] }));
  const signedOut = await t.json<{ error: string }>("POST", `${base}/git/pull-requests`, { title: "Signed out" });
  expect(signedOut.status).toBe(409);
  expect(signedOut.body.error).toContain("gh auth login");
  expect(state().calls.map((call) => call.args.slice(0, 2))).toEqual([["auth", "status"]]);

  renameSync(join(bin, "gh"), join(bin, "gh-away"));
  try {
    const missing = await t.json<{ error: string }>("POST", `${base}/git/pull-requests`, { title: "No gh" });
    expect(missing.status).toBe(409);
    expect(missing.body.error).toContain("gh (GitHub's CLI) is not installed");
  } finally {
    renameSync(join(bin, "gh-away"), join(bin, "gh"));
  }
  expect((await t.json("POST", `${base}/git/pull-requests`, { title: "" })).status).toBe(400);
});

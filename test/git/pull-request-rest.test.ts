/**
 * Pull requests without `gh` (issue 39): through GitHub's REST API with a stored token, against a fake
 * GitHub API on loopback that speaks the public shapes (`POST /repos/{owner}/{repo}/pulls`, its 422s).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PullRequest } from "../../src/schemas/git.ts";
import type { Project } from "../../src/schemas/projects.ts";
import { git, makeBareRepo } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: unknown;
}

const TOKEN = "ghp_fakeTokenForTheTests000000000000";
const seen: Seen[] = [];
const pulls: Array<Record<string, unknown>> = [];
/** The pull request's reviews, oldest first, and its head commit's check runs and statuses, as GitHub answers them. */
const reviews: Array<{ user: { login: string }; state: string }> = [];
const checkRuns: Array<{ name: string; status: string; conclusion: string | null }> = [];
const statuses: Array<{ context: string; state: string }> = [];
const fakeGitHub = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    const body = request.method === "POST" ? await request.json() : undefined;
    seen.push({ method: request.method, path, authorization: request.headers.get("authorization"), body });
    if (request.headers.get("authorization") !== `Bearer ${TOKEN}`) return Response.json({ message: "Bad credentials" }, { status: 401 });
    if (request.method === "GET" && path === "/repos/octo/repo") return Response.json({ full_name: "octo/repo", default_branch: "trunk" });
    if (request.method === "POST" && path === "/repos/octo/repo/pulls") {
      const wanted = body as { title: string; head: string; base: string; draft: boolean };
      if (pulls.some((pull) => (pull.head as { ref: string }).ref === wanted.head)) {
        return Response.json(
          {
            message: "Validation Failed",
            errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for octo:${wanted.head}.` }],
          },
          { status: 422 },
        );
      }
      const number = pulls.length + 1;
      const pull = {
        number,
        html_url: `https://github.com/octo/repo/pull/${number}`,
        state: "open",
        merged: false,
        title: wanted.title,
        draft: wanted.draft,
        head: { ref: wanted.head, sha: `sha${number}` },
        base: { ref: wanted.base },
      };
      pulls.push(pull);
      return Response.json(pull, { status: 201 });
    }
    const reviewsOf = /^\/repos\/octo\/repo\/pulls\/(\d+)\/reviews$/.exec(path);
    if (request.method === "GET" && reviewsOf) return Response.json(reviews);
    if (request.method === "GET" && path === "/repos/octo/repo/commits/sha1/check-runs")
      return Response.json({ total_count: checkRuns.length, check_runs: checkRuns });
    if (request.method === "GET" && path === "/repos/octo/repo/commits/sha1/status") return Response.json({ state: "pending", statuses });
    const one = /^\/repos\/octo\/repo\/pulls\/(\d+)$/.exec(path);
    const pull = one && pulls[Number(one[1]) - 1];
    if (request.method === "GET" && pull) return Response.json(pull);
    return Response.json({ message: "Not Found" }, { status: 404 });
  },
});

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
let base: string;
beforeAll(async () => {
  dir = makeTempDir("atrium-pull-requests-rest-");
  const noGh = join(dir.path, "empty-bin");
  mkdirSync(noGh);
  t = await startTestServer({
    tuning: { modules: { projects: { env: { HOME: dir.path, PATH: noGh }, gitHubApiUrl: `http://127.0.0.1:${fakeGitHub.port}` } } },
  });
  const { work } = makeBareRepo(dir.path);
  git(["remote", "set-url", "origin", "https://github.com/octo/repo.git"], work);
  const created = await t.json<Project>("POST", "/v1/projects", { folderPath: work });
  base = `/v1/projects/${created.body.id}/locations/${created.body.locations[0]!.id}`;
});
afterAll(async () => {
  await t.stop();
  dir.remove();
  fakeGitHub.stop(true);
});

test("without gh, a stored token opens and reads pull requests through the REST API; GitHub's refusals in its words", async () => {
  const none = await t.json<{ error: string }>("POST", `${base}/git/pull-requests`, { title: "No way yet" });
  expect(none.status).toBe(409);
  expect(none.body.error).toContain("gh (GitHub's CLI) is not installed on this machine, and no GitHub token is stored");
  expect(seen).toEqual([]);

  expect(
    (await t.api("/v1/github/token", { method: "PUT", body: JSON.stringify({ token: TOKEN }), headers: { "content-type": "application/json" } })).status,
  ).toBe(204);
  const state = await t.json<{ stored: boolean }>("GET", "/v1/github/token");
  expect(state.body).toEqual({ stored: true });
  expect(statSync(join(t.dataDir, "github-token")).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(t.dataDir, "github-token"), "utf8").trim()).toBe(TOKEN);

  const opened = await t.json<PullRequest>("POST", `${base}/git/pull-requests`, { title: "From the phone", body: "Made on a train." });
  expect(opened.status).toBe(201);
  assertMatchesSchema(PullRequest, opened.body);
  expect(opened.body).toEqual({
    number: 1,
    url: "https://github.com/octo/repo/pull/1",
    state: "open",
    title: "From the phone",
    headBranch: "main",
    baseBranch: "trunk",
    draft: false,
    review: null,
    checks: { passed: 0, failed: 0, pending: 0 },
  });
  expect(seen.map((call) => [call.method, call.path, call.authorization]).sort()).toEqual([
    ["GET", "/repos/octo/repo", `Bearer ${TOKEN}`],
    ["GET", "/repos/octo/repo/commits/sha1/check-runs", `Bearer ${TOKEN}`],
    ["GET", "/repos/octo/repo/commits/sha1/status", `Bearer ${TOKEN}`],
    ["GET", "/repos/octo/repo/pulls/1/reviews", `Bearer ${TOKEN}`],
    ["POST", "/repos/octo/repo/pulls", `Bearer ${TOKEN}`],
  ]);
  expect(seen[1]!.body).toEqual({ title: "From the phone", body: "Made on a train.", head: "main", base: "trunk", draft: false });

  const again = await t.json<{ error: string }>("POST", `${base}/git/pull-requests`, { title: "Again", base: "trunk" });
  expect(again.status).toBe(409);
  expect(again.body.error).toContain("A pull request already exists for octo:main.");

  pulls[0]!.merged = true;
  // One reviewer asked for changes, then approved; another asked for changes: changes are still asked for.
  reviews.push(
    { user: { login: "ana" }, state: "CHANGES_REQUESTED" },
    { user: { login: "ana" }, state: "APPROVED" },
    { user: { login: "bo" }, state: "COMMENTED" },
    { user: { login: "cy" }, state: "CHANGES_REQUESTED" },
  );
  checkRuns.push({ name: "test", status: "completed", conclusion: "success" }, { name: "build", status: "queued", conclusion: null });
  statuses.push({ context: "ci/legacy", state: "error" });
  const read = await t.json<PullRequest>("GET", `${base}/git/pull-requests/1`);
  assertMatchesSchema(PullRequest, read.body);
  expect(read.body).toMatchObject({ state: "merged", review: "changes_requested", checks: { passed: 1, failed: 1, pending: 1 } });
  reviews.pop();
  expect((await t.json<PullRequest>("GET", `${base}/git/pull-requests/1`)).body.review).toBe("approved");
  expect((await t.json("GET", `${base}/git/pull-requests/7`)).status).toBe(404);

  expect((await t.api("/v1/github/token", { method: "DELETE" })).status).toBe(204);
  expect((await t.json<{ stored: boolean }>("GET", "/v1/github/token")).body).toEqual({ stored: false });
});

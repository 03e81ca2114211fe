import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { git, makeBareRepo, makeCheckout, type BareRepo } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Project, ProjectList } from "../../src/schemas/projects.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import type { EventRecord } from "../../src/schemas/events.ts";
import type { Static } from "@sinclair/typebox";

type ProjectBody = Static<typeof Project>;
let t: TestServer;
let fixtures: ReturnType<typeof makeTempDir>;
let repo: BareRepo;

beforeAll(async () => {
  t = await startTestServer();
  // The first harness scan appends events of its own; the event checks below start after it.
  await t.ready();
  fixtures = makeTempDir("atrium-git-");
  repo = makeBareRepo(fixtures.path, "alpha");
});
afterAll(async () => {
  await t.stop();
  fixtures.remove();
});

const projectsDir = () => join(t.dataDir, "projects");
const cursor = async () => (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;

/** The log after `after`, read through the SSE replay as a client would. */
const events = (after: number): Promise<Array<Static<typeof EventRecord>>> => replayedEvents(t, after);

async function expectError(response: { status: number; body: unknown }, status: number, fragment: string): Promise<void> {
  expect(response.status).toBe(status);
  assertMatchesSchema(ErrorBody, response.body);
  expect((response.body as { error: string }).error).toContain(fragment);
}

describe("projects from git", () => {
  let cloned: ProjectBody;

  test("clone a file:// bare repository", async () => {
    const before = await cursor();
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects/from-git", { url: repo.url });
    expect(status).toBe(201);
    assertMatchesSchema(Project, body);
    cloned = body;
    expect(body).toMatchObject({
      name: "alpha",
      origin: "service",
      repoUrl: repo.url,
      repoKey: repo.bare.replace(/\.git$/, ""),
      worktreeBase: { remote: "origin", branch: "main" },
      defaultRunLocation: "projectDirectory",
      isScratch: false,
    });
    expect(body.id).toStartWith("prj_");
    expect(body.locations).toHaveLength(1);
    const location = body.locations[0]!;
    expect(location.isGitRepository).toBe(true);
    expect(location.folderPath).toBe(join(projectsDir(), "alpha"));
    expect(existsSync(join(location.folderPath, "README.md"))).toBe(true);
    const created = await events(before);
    expect(created.map((event) => [event.kind, event.subjectId, event.subjectRevision])).toEqual([["project.created", body.id, 1]]);
    expect((created[0]!.payload as { project: ProjectBody }).project).toEqual(body);
  });

  test("the same repository by another URL form is 409 naming the project", async () => {
    for (const url of [repo.url, repo.bare, `${repo.bare}/`]) {
      await expectError(await t.json("POST", "/v1/projects/from-git", { url }), 409, cloned.id);
    }
  });

  test("refused URL forms are 400 and clone nothing", async () => {
    const before = readdirSync(projectsDir());
    for (const url of [
      "--upload-pack=touch /tmp/atrium-pwned",
      "ext::sh -c touch% /tmp/atrium-pwned",
      "fd::3",
      "ftp://x/y",
      "rel/path",
      "https://",
      "git://:99999/x",
    ]) {
      const response = await t.json("POST", "/v1/projects/from-git", { url });
      expect(response.status).toBe(400);
    }
    expect(existsSync("/tmp/atrium-pwned")).toBe(false);
    expect(readdirSync(projectsDir())).toEqual(before);
  });

  test("a missing repository fails clearly and leaves no row, no folder and no event", async () => {
    const before = { cursor: await cursor(), folders: readdirSync(projectsDir()), count: (await t.json<unknown[]>("GET", "/v1/projects")).body.length };
    const response = await t.json("POST", "/v1/projects/from-git", { url: `file://${fixtures.path}/missing.git` });
    await expectError(response, 400, "could not clone");
    expect((response.body as { error: string }).error).toContain("does not appear to be a git repository");
    expect(await cursor()).toBe(before.cursor);
    expect(readdirSync(projectsDir())).toEqual(before.folders);
    expect((await t.json<unknown[]>("GET", "/v1/projects")).body).toHaveLength(before.count);
  });

  test("a chosen id and name are kept; a taken id is 409", async () => {
    const other = makeBareRepo(fixtures.path, "beta");
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects/from-git", { url: other.url, id: "my-beta", name: "Beta!" });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: "my-beta", name: "Beta!" });
    const third = makeBareRepo(fixtures.path, "gamma");
    await expectError(await t.json("POST", "/v1/projects/from-git", { url: third.url, id: "my-beta" }), 409, "my-beta");
    await expectError(await t.json("POST", "/v1/projects/from-git", { url: third.url, id: "bad id!" }), 400, '"id"');
  });

  test("a second repository with the same name gets its own folder", async () => {
    const elsewhere = join(fixtures.path, "elsewhere");
    mkdirSync(elsewhere);
    const twin = makeBareRepo(elsewhere, "alpha");
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects/from-git", { url: twin.url });
    expect(status).toBe(201);
    expect(body.locations[0]!.folderPath).toBe(join(projectsDir(), "alpha-2"));
  });
});

describe("projects from folders", () => {
  test("a plain folder: not a git repository, no worktree base", async () => {
    const folder = join(fixtures.path, "plain");
    mkdirSync(folder);
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: folder });
    expect(status).toBe(201);
    assertMatchesSchema(Project, body);
    expect(body).toMatchObject({ name: "plain", repoUrl: null, repoKey: null, worktreeBase: null, isScratch: false });
    expect(body.locations[0]).toMatchObject({ folderPath: folder, isGitRepository: false });
    await expectError(await t.json("POST", "/v1/projects", { folderPath: folder }), 409, body.id);
  });

  test("a checkout: git detected, origin becomes repoUrl and repoKey", async () => {
    const delta = makeBareRepo(fixtures.path, "delta");
    const checkout = makeCheckout(fixtures.path, delta.bare, "delta-checkout");
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: checkout, isScratch: false });
    expect(status).toBe(201);
    expect(body).toMatchObject({ repoUrl: delta.bare, repoKey: delta.bare.replace(/\.git$/, ""), worktreeBase: { remote: "origin", branch: "main" } });
    expect(body.locations[0]!.isGitRepository).toBe(true);
    // Cloning the same repository now is a duplicate.
    await expectError(await t.json("POST", "/v1/projects/from-git", { url: delta.url }), 409, body.id);
  });

  test("git says what a folder holds: the branch checked out, before a first commit too, none when detached; origin's default first; a .git folder is plain", async () => {
    const detectedBase = async (folderPath: string) => {
      const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects", { folderPath });
      expect(status).toBe(201);
      return { isGit: body.locations[0]!.isGitRepository, worktreeBase: body.worktreeBase };
    };
    const own = join(fixtures.path, "own-trunk");
    git(["init", "--quiet", "--initial-branch=trunk", own]);
    git(["commit", "--quiet", "--allow-empty", "-m", "first"], own);
    expect(await detectedBase(own)).toEqual({ isGit: true, worktreeBase: { remote: "", branch: "trunk" } });
    const unborn = join(fixtures.path, "unborn-topic");
    git(["init", "--quiet", "--initial-branch=topic", unborn]);
    expect(await detectedBase(unborn)).toEqual({ isGit: true, worktreeBase: { remote: "", branch: "topic" } });
    const detached = join(fixtures.path, "detached");
    git(["init", "--quiet", detached]);
    git(["commit", "--quiet", "--allow-empty", "-m", "first"], detached);
    git(["checkout", "--quiet", "--detach"], detached);
    // No branch detected: the base falls back to the default one.
    expect(await detectedBase(detached)).toEqual({ isGit: true, worktreeBase: { remote: "", branch: "main" } });
    // A clone checked out on another branch still starts worktrees from origin's default branch.
    const clone = makeCheckout(fixtures.path, makeBareRepo(fixtures.path, "detected").bare, "detected-checkout");
    git(["checkout", "--quiet", "-b", "feature"], clone);
    expect(await detectedBase(clone)).toEqual({ isGit: true, worktreeBase: { remote: "origin", branch: "main" } });
    expect(await detectedBase(join(own, ".git"))).toEqual({ isGit: false, worktreeBase: null });
  });

  test("a scratch project gets a fresh empty folder in the data dir", async () => {
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects", { isScratch: true, name: "Try things" });
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: "Try things", isScratch: true, worktreeBase: null });
    const folder = body.locations[0]!.folderPath;
    expect(folder.startsWith(projectsDir())).toBe(true);
    expect(readdirSync(folder)).toEqual([]);
  });

  test("bad folders are 400 naming the problem", async () => {
    await expectError(await t.json("POST", "/v1/projects", { folderPath: "relative/folder" }), 400, "absolute path");
    await expectError(await t.json("POST", "/v1/projects", { folderPath: join(fixtures.path, "nope") }), 400, "does not exist");
    await expectError(await t.json("POST", "/v1/projects", { folderPath: join(repo.work, "README.md") }), 400, "not a folder");
    await expectError(await t.json("POST", "/v1/projects", {}), 400, "folderPath");
    await expectError(await t.json("POST", "/v1/projects", { isScratch: true, folderPath: fixtures.path }), 400, "leave folderPath out");
    await expectError(await t.json("POST", "/v1/projects", { folderPath: 42 }), 400, '"folderPath"');
  });
});

describe("project updates", () => {
  let project: ProjectBody;
  beforeAll(async () => {
    const epsilon = makeBareRepo(fixtures.path, "epsilon");
    project = (await t.json<ProjectBody>("POST", "/v1/projects/from-git", { url: epsilon.url })).body;
  });

  test("each field changes, and null resets it", async () => {
    const before = await cursor();
    const renamed = await t.json<ProjectBody>("PATCH", `/v1/projects/${project.id}`, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    assertMatchesSchema(Project, renamed.body);
    expect(renamed.body.name).toBe("Renamed");
    const based = await t.json<ProjectBody>("PATCH", `/v1/projects/${project.id}`, { worktreeBase: { remote: "origin", branch: "develop" } });
    expect(based.body.worktreeBase).toEqual({ remote: "origin", branch: "develop" });
    expect(based.body.name).toBe("Renamed");
    const located = await t.json<ProjectBody>("PATCH", `/v1/projects/${project.id}`, { defaultRunLocation: "worktree" });
    expect(located.body.defaultRunLocation).toBe("worktree");
    const reset = await t.json<ProjectBody>("PATCH", `/v1/projects/${project.id}`, { name: null, worktreeBase: null, defaultRunLocation: null });
    expect(reset.body).toMatchObject({ name: "epsilon", worktreeBase: { remote: "origin", branch: "main" }, defaultRunLocation: "projectDirectory" });
    const unchanged = await t.json<ProjectBody>("PATCH", `/v1/projects/${project.id}`, {});
    expect(unchanged.body).toEqual(reset.body);
    expect((await t.json<ProjectBody>("GET", `/v1/projects/${project.id}`)).body).toEqual(reset.body);
    const updates = (await events(before)).filter((event) => event.subjectId === project.id);
    expect(updates.map((event) => [event.kind, event.subjectRevision])).toEqual([
      ["project.updated", 2],
      ["project.updated", 3],
      ["project.updated", 4],
      ["project.updated", 5],
      ["project.updated", 6],
    ]);
  });

  test("unknown ids are 404, wrong types 400 naming the field, and nothing changes", async () => {
    await expectError(await t.json("PATCH", "/v1/projects/prj_nothing", { name: "x" }), 404, "prj_nothing");
    await expectError(await t.json("GET", "/v1/projects/prj_nothing"), 404, "prj_nothing");
    await expectError(await t.json("PATCH", `/v1/projects/${project.id}`, { name: 5 }), 400, '"name"');
    await expectError(await t.json("PATCH", `/v1/projects/${project.id}`, { defaultRunLocation: "somewhere" }), 400, '"defaultRunLocation"');
    await expectError(await t.json("PATCH", `/v1/projects/${project.id}`, { worktreeBase: { remote: "origin" } }), 400, '"worktreeBase');
    await expectError(await t.json("PATCH", `/v1/projects/${project.id}`, { worktreeBase: { remote: "x;rm", branch: "main" } }), 400, '"worktreeBase');
    // Names git would read as options.
    await expectError(
      await t.json("PATCH", `/v1/projects/${project.id}`, { worktreeBase: { remote: "--upload-pack", branch: "main" } }),
      400,
      '"worktreeBase.remote"',
    );
    await expectError(await t.json("PATCH", `/v1/projects/${project.id}`, { worktreeBase: { remote: "origin", branch: "-x" } }), 400, '"worktreeBase.branch"');
    expect((await t.json<ProjectBody>("GET", `/v1/projects/${project.id}`)).body.name).toBe("epsilon");
  });

  test("a folder that is no git repository takes neither a worktree base nor worktree runs", async () => {
    const scratch = (await t.json<ProjectBody>("POST", "/v1/projects", { isScratch: true })).body;
    await expectError(await t.json("PATCH", `/v1/projects/${scratch.id}`, { worktreeBase: { remote: "origin", branch: "main" } }), 400, "not a git repository");
    await expectError(await t.json("PATCH", `/v1/projects/${scratch.id}`, { defaultRunLocation: "worktree" }), 400, "not a git repository");
  });
});

describe("locations and deletion", () => {
  test("a second checkout becomes a second location; the last one cannot go", async () => {
    const zeta = makeBareRepo(fixtures.path, "zeta");
    const first = makeCheckout(fixtures.path, zeta.bare, "zeta-one");
    const second = makeCheckout(fixtures.path, zeta.bare, "zeta-two");
    const project = (await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: first })).body;
    const added = await t.json<ProjectBody>("POST", `/v1/projects/${project.id}/locations`, { folderPath: second });
    expect(added.status).toBe(201);
    expect(added.body.locations.map((location) => location.folderPath)).toEqual([first, second]);
    await expectError(await t.json("POST", `/v1/projects/${project.id}/locations`, { folderPath: second }), 409, project.id);
    const removed = await t.json<ProjectBody>("DELETE", `/v1/projects/${project.id}/locations/${added.body.locations[1]!.id}`);
    expect(removed.body.locations).toHaveLength(1);
    expect(existsSync(second)).toBe(true);
    await expectError(await t.json("DELETE", `/v1/projects/${project.id}/locations/${project.locations[0]!.id}`), 409, "last");
    await expectError(await t.json("DELETE", `/v1/projects/${project.id}/locations/loc_nothing`), 404, "loc_nothing");
  });

  test("a location must be a checkout of the project's repository; a plain project adopts one", async () => {
    const theta = makeBareRepo(fixtures.path, "theta");
    const iota = makeBareRepo(fixtures.path, "iota");
    const thetaProject = (await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: makeCheckout(fixtures.path, theta.bare, "theta-one") })).body;
    await expectError(
      await t.json("POST", `/v1/projects/${thetaProject.id}/locations`, { folderPath: makeCheckout(fixtures.path, iota.bare, "iota-one") }),
      400,
      "is not a checkout of",
    );
    const plainFolder = join(fixtures.path, "plain-then-git");
    mkdirSync(plainFolder);
    const plain = (await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: plainFolder })).body;
    const adopted = await t.json<ProjectBody>("POST", `/v1/projects/${plain.id}/locations`, { folderPath: makeCheckout(fixtures.path, iota.bare, "iota-two") });
    expect(adopted.status).toBe(201);
    expect(adopted.body).toMatchObject({ repoKey: iota.bare.replace(/\.git$/, ""), worktreeBase: { remote: "origin", branch: "main" } });
    // The repository is now this project's: cloning it again is a duplicate.
    await expectError(await t.json("POST", "/v1/projects/from-git", { url: iota.url }), 409, plain.id);
  });

  test("the same folder sent twice at once makes one project and one 409, never a 500", async () => {
    const folder = join(fixtures.path, "raced");
    mkdirSync(folder);
    const responses = await Promise.all([1, 2, 3].map(() => t.json("POST", "/v1/projects", { folderPath: folder })));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409]);
  });

  test("deleting removes the server's folders but never the user's", async () => {
    const eta = makeBareRepo(fixtures.path, "eta");
    const clone = (await t.json<ProjectBody>("POST", "/v1/projects/from-git", { url: eta.url })).body;
    const userFolder = join(fixtures.path, "users-own");
    mkdirSync(userFolder);
    const own = (await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: userFolder })).body;
    const before = await cursor();
    for (const project of [clone, own]) {
      const deleted = await t.json<ProjectBody>("DELETE", `/v1/projects/${project.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual(project);
      await expectError(await t.json("GET", `/v1/projects/${project.id}`), 404, project.id);
    }
    expect(existsSync(clone.locations[0]!.folderPath)).toBe(false);
    expect(existsSync(userFolder)).toBe(true);
    expect((await events(before)).map((event) => [event.kind, event.subjectId])).toEqual([
      ["project.deleted", clone.id],
      ["project.deleted", own.id],
    ]);
    await expectError(await t.json("DELETE", `/v1/projects/${clone.id}`), 404, clone.id);
  });

  test("the list holds every project, valid against its schema", async () => {
    const { status, body } = await t.json<ProjectBody[]>("GET", "/v1/projects");
    expect(status).toBe(200);
    assertMatchesSchema(ProjectList, body);
    expect(body.length).toBeGreaterThan(3);
  });
});

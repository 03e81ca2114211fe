import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { commitFiles, copyBareRepo, git, makeBareRepo, type BareRepo } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ProjectRepository } from "../../src/store/project-repository.ts";
import { WorktreeRepository } from "../../src/store/worktree-repository.ts";
import { ProjectService } from "../../src/projects/project-service.ts";
import { WorktreeService } from "../../src/projects/worktree-service.ts";
import { FileLogger } from "../../src/logging/logger.ts";
import { Worktree } from "../../src/schemas/projects.ts";
import { startTestServer } from "../helpers/test-server.ts";

let db: TestStore;
let fixtures: ReturnType<typeof makeTempDir>;
let repo: BareRepo;
let projects: ProjectService;
let worktrees: WorktreeService;
let projectId: string;
let repository: string;

function services(dataDir: string, store: TestStore) {
  const logger = new FileLogger({ file: join(dataDir, "logs", "atrium.log"), level: "info", echoToStderr: false, maxBytes: 1 << 20 });
  const projectRepository = new ProjectRepository(store.store);
  const worktreeService = new WorktreeService({
    store: store.store,
    worktrees: new WorktreeRepository(store.store),
    projects: projectRepository,
    serverId: "srv_test",
    worktreesDir: join(dataDir, "worktrees"),
    logger,
  });
  const projectService = new ProjectService({
    store: store.store,
    projects: projectRepository,
    events: store.log,
    logger,
    serverId: "srv_test",
    projectsDir: join(dataDir, "projects"),
    removeWorktrees: (id) => worktreeService.removeAllOf(id),
  });
  return { projectService, worktreeService };
}

/** The remote every test starts from, made once; each test gets a copy of its own to change. */
const templates = makeTempDir("atrium-git-template-");
let template: BareRepo;
beforeAll(() => {
  template = makeBareRepo(templates.path, "app");
});
afterAll(() => templates.remove());

beforeEach(async () => {
  db = openTestStore();
  fixtures = makeTempDir("atrium-git-");
  repo = copyBareRepo(template, fixtures.path, "app");
  mkdirSync(join(db.dir, "projects"));
  ({ projectService: projects, worktreeService: worktrees } = services(db.dir, db));
  // From its plain path, which git clones by copying the objects instead of packing them over a
  // transport; how the project was cloned is not what these tests are about.
  const project = await projects.cloneFromGit({ url: repo.bare });
  projectId = project.id;
  repository = project.locations[0]!.folderPath;
});
afterEach(() => {
  db.close();
  fixtures.remove();
});

const branches = () => git(["for-each-ref", "--format=%(refname:short)", "refs/heads"], repository).split("\n");

describe("worktrees", () => {
  test("create makes a new branch from the base in the data dir, and list shows it", async () => {
    const worktree = await worktrees.create({ projectId, sessionId: "ses_1", name: "Fix the login bug!" });
    assertMatchesSchema(Worktree, worktree);
    expect(worktree).toMatchObject({ name: "fix-the-login-bug", branch: "atrium/fix-the-login-bug", baseRef: "origin/main", sessionId: "ses_1" });
    expect(worktree.path).toBe(join(db.dir, "worktrees", projectId, "fix-the-login-bug"));
    expect(existsSync(join(worktree.path, "README.md"))).toBe(true);
    expect(git(["rev-parse", "HEAD"], worktree.path)).toBe(git(["rev-parse", "origin/main"], repository));
    expect(branches()).toContain("atrium/fix-the-login-bug");
    expect(worktrees.list(projectId)).toEqual([worktree]);
  });

  test("the base follows new commits on the remote, and names never collide", async () => {
    commitFiles(repo.bare, {}, "second");
    const first = await worktrees.create({ projectId, sessionId: "ses_1", name: "task" });
    const second = await worktrees.create({ projectId, sessionId: "ses_2", name: "task" });
    expect(second.name).toBe("task-2");
    expect(git(["log", "-1", "--format=%s"], first.path)).toBe("second");
    const unnamed = await worktrees.create({ projectId, sessionId: "ses_ABC" });
    expect(unnamed.branch).toBe("atrium/ses-abc");
  });

  test("remove deletes the folder and the never-pushed branch", async () => {
    const worktree = await worktrees.create({ projectId, sessionId: "ses_1", name: "gone" });
    await worktrees.remove(worktree.id);
    expect(existsSync(worktree.path)).toBe(false);
    expect(branches()).not.toContain("atrium/gone");
    expect(worktrees.list(projectId)).toEqual([]);
    expect(git(["worktree", "list", "--porcelain"], repository)).not.toContain(worktree.path);
  });

  test("a pushed branch, or one asked to be kept, stays", async () => {
    const pushed = await worktrees.create({ projectId, sessionId: "ses_1", name: "pushed" });
    git(["push", "--quiet", "origin", "atrium/pushed"], pushed.path);
    git(["fetch", "--quiet", "origin"], repository);
    await worktrees.remove(pushed.id);
    expect(branches()).toContain("atrium/pushed");
    const kept = await worktrees.create({ projectId, sessionId: "ses_2", name: "kept" });
    await worktrees.remove(kept.id, { keepBranch: true });
    expect(branches()).toContain("atrium/kept");
    expect(existsSync(kept.path)).toBe(false);
  });

  test("a worktree whose folder vanished is still removed cleanly", async () => {
    const worktree = await worktrees.create({ projectId, sessionId: "ses_1", name: "vanished" });
    git(["worktree", "remove", "--force", worktree.path], repository);
    await worktrees.remove(worktree.id);
    expect(worktrees.list(projectId)).toEqual([]);
  });

  test("pruning removes only worktrees whose session is gone", async () => {
    const live = await worktrees.create({ projectId, sessionId: "ses_live" });
    const dead = await worktrees.create({ projectId, sessionId: "ses_dead" });
    expect(await worktrees.pruneOrphans((sessionId) => sessionId === "ses_live")).toBe(1);
    expect(worktrees.list(projectId).map((w) => w.id)).toEqual([live.id]);
    expect(existsSync(dead.path)).toBe(false);
  });

  test("a base that is not a remote of the repository, or not a branch name, is refused before git sees it", async () => {
    projects.update(projectId, { worktreeBase: { remote: "upstream", branch: "main" } });
    await expect(worktrees.create({ projectId, sessionId: "ses_1" })).rejects.toThrow('"upstream" is not a remote');
    projects.update(projectId, { worktreeBase: { remote: "origin", branch: "a..b" } });
    await expect(worktrees.create({ projectId, sessionId: "ses_1" })).rejects.toThrow("not a valid branch name");
  });

  test("a bad base or a project without git is refused", async () => {
    projects.update(projectId, { worktreeBase: { remote: "origin", branch: "no-such-branch" } });
    await expect(worktrees.create({ projectId, sessionId: "ses_1" })).rejects.toThrow("origin/no-such-branch does not exist");
    const scratch = await projects.create({ isScratch: true });
    await expect(worktrees.create({ projectId: scratch.id, sessionId: "ses_1" })).rejects.toThrow("no git repository");
    await expect(worktrees.create({ projectId: "prj_none", sessionId: "ses_1" })).rejects.toThrow("no project has id");
  });

  test("deleting the project removes its worktrees", async () => {
    const worktree = await worktrees.create({ projectId, sessionId: "ses_1" });
    await projects.delete(projectId);
    expect(existsSync(worktree.path)).toBe(false);
    expect(existsSync(repository)).toBe(false);
  });
});

describe("start-up", () => {
  test("the server prunes worktrees of sessions that no longer exist, and abandoned clones", async () => {
    const worktree = await worktrees.create({ projectId, sessionId: "ses_gone" });
    const abandoned = join(db.dir, "projects", ".clone-tmp_crashed");
    mkdirSync(abandoned);
    db.store.close();
    const server = await startTestServer({ dataDir: db.dir });
    await server.server.backgroundStartup;
    expect(existsSync(worktree.path)).toBe(false);
    expect(existsSync(abandoned)).toBe(false);
    expect(branches()).not.toContain(worktree.branch);
    const listed = await server.json<unknown[]>("GET", `/v1/projects/${projectId}/worktrees`);
    expect(listed).toEqual({ status: 200, body: [] });
    await server.stop();
  });
});

describe("clone progress and disconnects", () => {
  test("a clone reports its progress as events", async () => {
    const other = makeBareRepo(fixtures.path, "progress");
    const logger = new FileLogger({ file: join(db.dir, "logs", "p.log"), level: "info", echoToStderr: false, maxBytes: 1 << 20 });
    // Every progress line git writes becomes an event: no wait before the first, none between them.
    const everyLine = new ProjectService({
      store: db.store,
      projects: new ProjectRepository(db.store),
      events: db.log,
      logger,
      serverId: "srv_test",
      projectsDir: join(db.dir, "projects"),
      removeWorktrees: async () => {},
      progressIntervalMs: 0,
    });
    const before = db.log.cursor();
    const project = await everyLine.cloneFromGit({ url: other.url });
    const progress = db.log.read(before, 1000).filter((event) => event.record.kind === "project.clone.progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.record.subjectId).toBe(`clone:${project.id}`);
    expect(progress[0]!.record.payload).toMatchObject({ projectId: project.id, url: other.url });
    expect(progress.map((event) => event.record.subjectRevision)).toEqual(progress.map((_, i) => i + 1));
    const created = db.log.read(before, 1000).find((event) => event.record.kind === "project.created");
    expect(created!.record.subjectRevision).toBe(1);
  });

  test("a client that disconnects mid-clone leaves either a whole project or nothing", async () => {
    // A git server over git's "dumb" HTTP protocol that holds the clone at its first object until the
    // test lets it go: the client disconnects while git is certainly cloning.
    const held = makeBareRepo(fixtures.path, "held");
    git(["update-server-info"], held.bare);
    const cloning = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const gitServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const path = decodeURIComponent(new URL(request.url).pathname).replace(/^\/held\.git\//, "");
        if (path.startsWith("objects/")) {
          cloning.resolve();
          await release.promise;
        }
        const file = Bun.file(join(held.bare, path));
        return !path.includes("..") && (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
      },
    });
    db.store.close();
    const server = await startTestServer({ dataDir: db.dir });
    try {
      const url = `http://127.0.0.1:${gitServer.port}/held.git`;
      const abort = new AbortController();
      const request = server
        .api("/v1/projects/from-git", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url }),
          signal: abort.signal,
        })
        .catch(() => undefined);
      await cloning.promise;
      expect(readdirSync(join(db.dir, "projects")).some((folder) => folder.startsWith(".clone-"))).toBe(true);
      abort.abort();
      await request;
      release.resolve();
      // Settled means: the project is listed, or neither its folder nor a clone in progress is left.
      const key = `127.0.0.1:${gitServer.port}/held`;
      type Listed = Array<{ repoKey: string; locations: Array<{ folderPath: string }> }>;
      const { folders, listed } = await until(
        async () => ({
          folders: readdirSync(join(db.dir, "projects")),
          listed: (await server.json<Listed>("GET", "/v1/projects")).body.filter((project) => project.repoKey === key),
        }),
        (seen) => seen.listed.length === 1 || !seen.folders.some((folder) => folder === "held" || folder.startsWith(".clone-")),
        20_000,
      );
      expect(folders.filter((folder) => folder.startsWith(".clone-"))).toEqual([]);
      if (listed.length === 1) expect(existsSync(join(listed[0]!.locations[0]!.folderPath, "README.md"))).toBe(true);
      else expect(folders).not.toContain("held");
    } finally {
      release.resolve();
      await server.stop();
      void gitServer.stop(true);
    }
  });
});

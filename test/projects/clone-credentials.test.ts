import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { git, makeBareRepo, makeCheckout, type BareRepo } from "../helpers/git-fixtures.ts";
import type { Project } from "../../src/schemas/projects.ts";

type ProjectBody = Static<typeof Project>;
const SECRET = "s3cret-token-value";
const BASIC = `Basic ${btoa(`user:${SECRET}`)}`;

let t: TestServer;
let fixtures: ReturnType<typeof makeTempDir>;
let repo: BareRepo;
/** A real git server over git's "dumb" HTTP protocol: the bare repository's files, behind Basic auth. */
let gitServer: Server<undefined>;
let authorizedRequests = 0;

beforeAll(async () => {
  t = await startTestServer();
  fixtures = makeTempDir("atrium-git-credentials-");
  repo = makeBareRepo(fixtures.path, "alpha");
  git(["update-server-info"], repo.bare);
  gitServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      if (request.headers.get("authorization") !== BASIC) {
        return new Response("sign in", { status: 401, headers: { "www-authenticate": 'Basic realm="git"' } });
      }
      authorizedRequests++;
      const path = decodeURIComponent(new URL(request.url).pathname).replace(/^\/alpha\.git\//, "");
      const file = Bun.file(join(repo.bare, path));
      return file.size > 0 && !path.includes("..") ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
});
afterAll(async () => {
  void gitServer.stop(true);
  await t.stop();
  fixtures.remove();
});

/** Every file under `root` (the database, its WAL, the log, the clone's .git) that holds `text`. */
function filesHolding(root: string, text: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    if (lstatSync(path).isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else if (readFileSync(path, "latin1").includes(text)) found.push(path);
  };
  visit(root);
  return found;
}

describe("credentials in a clone URL", () => {
  test("serve the clone once; the project, its event, the clone's origin and the data dir never hold them", async () => {
    const plainUrl = `http://127.0.0.1:${gitServer.port}/alpha.git`;
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects/from-git", {
      url: `http://user:${SECRET}@127.0.0.1:${gitServer.port}/alpha.git`,
    });
    expect(status).toBe(201);
    expect(authorizedRequests).toBeGreaterThan(0); // the clone did use them
    expect(body.repoUrl).toBe(plainUrl);
    expect(body.repoKey).toBe(`127.0.0.1:${gitServer.port}/alpha`);
    const folder = body.locations[0]!.folderPath;
    expect(git(["remote", "get-url", "origin"], folder)).toBe(plainUrl);
    expect((await t.json<ProjectBody>("GET", `/v1/projects/${body.id}`)).body.repoUrl).toBe(plainUrl);
    // The database and its WAL (project row, project.created event), the log, the clone's .git.
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
  });

  test("a clone that fails names the URL without them", async () => {
    // Port 1 on loopback: nothing listens there.
    const { status, body } = await t.json<{ error: string }>("POST", "/v1/projects/from-git", { url: `https://user:${SECRET}@127.0.0.1:1/beta.git` });
    expect(status).toBe(400);
    expect(body.error).toStartWith("could not clone https://127.0.0.1:1/beta.git: ");
    expect(body.error).not.toContain(SECRET);
    const invalid = await t.json<{ error: string }>("POST", "/v1/projects/from-git", { url: `https://user:${SECRET}@exa mple.com/a` });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe("url https://exa mple.com/a is not a valid URL");
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
  });

  test("a folder whose origin holds a token becomes a project without it", async () => {
    const folder = makeCheckout(fixtures.path, repo.bare, "own-checkout");
    git(["remote", "set-url", "origin", `https://oauth2:${SECRET}@git.example.com/team/own.git`], folder);
    const { status, body } = await t.json<ProjectBody>("POST", "/v1/projects", { folderPath: folder });
    expect(status).toBe(201);
    expect(body.repoUrl).toBe("https://git.example.com/team/own.git");
    expect(body.repoKey).toBe("git.example.com/team/own");
    expect(filesHolding(t.dataDir, SECRET)).toEqual([]);
  });
});

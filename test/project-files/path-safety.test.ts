/**
 * Every path stays inside its folder (issue 38): `..`, absolute paths, NUL bytes, a link pointing out, a
 * linked parent folder, `.git`, and a folder turned into a link after the check (between requests, and
 * while requests run) are refused with {error}; nothing outside is read or written.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FolderAccess } from "../../src/project-files/folder-access.ts";
import { git } from "../helpers/git-fixtures.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { filesProject, query } from "./files-fixtures.ts";

let t: TestServer;
let dir: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  t = await startTestServer();
});
beforeEach(() => {
  dir = makeTempDir("atrium-files-safety-");
});
afterEach(() => dir.remove());
afterAll(() => t.stop());

/** A project folder with an `outside` folder beside it holding a secret, and links from inside to it. */
function folders(): { root: string; outside: string } {
  const root = join(dir.path, "root");
  const outside = join(dir.path, "outside");
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "OUTSIDE\n");
  writeFileSync(join(root, "sub", "secret.txt"), "inside\n");
  writeFileSync(join(root, "readme.txt"), "hello\n");
  symlinkSync(join(outside, "secret.txt"), join(root, "out-link.txt"));
  symlinkSync(outside, join(root, "out-dir"));
  return { root, outside };
}

const outsideUnchanged = (outside: string) => {
  expect(readdirSync(outside)).toEqual(["secret.txt"]);
  expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("OUTSIDE\n");
};

test("paths that leave the folder are refused on every route, and nothing outside is read or written", async () => {
  const { root, outside } = folders();
  const { base } = await filesProject(t, root);
  const content = (path: string) => `${base}/content${query({ path })}`;
  const cases: Array<[string, number]> = [
    ["../outside/secret.txt", 400],
    ["sub/../../outside/secret.txt", 400],
    [join(outside, "secret.txt"), 400],
    ["sub/secret.txt\0", 400],
    ["out-link.txt", 403],
    ["out-dir/secret.txt", 403],
  ];
  for (const [path, status] of cases) {
    const read = await t.api(content(path));
    expect([path, read.status]).toEqual([path, status]);
    const body = (await read.json()) as { error: string };
    expect(typeof body.error).toBe("string");
    expect(JSON.stringify(body)).not.toContain("OUTSIDE");
    const put = await t.api(content(path), { method: "PUT", body: "PWNED", headers: { "if-match": "*" } });
    expect([path, put.status]).toEqual([path, status]);
    const create = await t.api(content(path), { method: "PUT", body: "PWNED", headers: { "if-none-match": "*" } });
    expect([path, create.status]).toEqual([path, path === "out-link.txt" ? 403 : status]);
    const moved = await t.json("POST", `${base}/move`, { from: "readme.txt", to: path });
    expect(moved.status).toBeOneOf([400, 403, 409]);
  }
  // A new file through a linked folder, a listing of it, a search in it: refused too.
  expect((await t.api(content("out-dir/new.txt"), { method: "PUT", body: "PWNED", headers: { "if-none-match": "*" } })).status).toBe(403);
  expect((await t.json("GET", `${base}${query({ path: "out-dir" })}`)).status).toBe(403);
  expect((await t.json("GET", `${base}${query({ path: "../outside" })}`)).status).toBe(400);
  expect((await t.json("POST", `${base}/move`, { from: "out-dir/secret.txt", to: "stolen.txt" })).status).toBe(403);
  const search = await t.json<Array<{ path: string; snippet: string | null }>>("GET", `${base}/search${query({ q: "OUTSIDE", mode: "content" })}`);
  expect(search.status).toBe(200);
  expect(search.body).toEqual([]);
  // The link itself is listed as a link, not followed.
  const listed = await t.json<Array<{ name: string; type: string }>>("GET", base);
  expect(listed.body.filter((entry) => entry.name.startsWith("out-"))).toMatchObject([
    { name: "out-dir", type: "symlink" },
    { name: "out-link.txt", type: "symlink" },
  ]);
  outsideUnchanged(outside);
  expect(existsSync(join(root, "stolen.txt"))).toBe(false);
  expect(readFileSync(join(root, "readme.txt"), "utf8")).toBe("hello\n");
});

test(".git is read, never written", async () => {
  const { root } = folders();
  git(["init", "--quiet", root]);
  const config = readFileSync(join(root, ".git", "config"), "utf8");
  const { base } = await filesProject(t, root);
  const content = (path: string) => `${base}/content${query({ path })}`;

  expect(await (await t.api(content(".git/config"))).text()).toBe(config);
  for (const path of [".git/config", ".git/hooks/pre-commit", ".GIT/config", "sub/.git"]) {
    const put = await t.api(content(path), { method: "PUT", body: "[core]\n", headers: { "if-match": "*", "if-none-match": "*" } });
    expect([path, put.status]).toEqual([path, 403]);
    expect((await t.api(content(path), { method: "DELETE", headers: { "if-match": "*" } })).status).toBe(403);
  }
  // A link inside the folder that leads into .git: refused where it really leads.
  symlinkSync(".git", join(root, "git-link"));
  expect((await t.api(content("git-link/config"), { method: "PUT", body: "[core]\n", headers: { "if-match": "*" } })).status).toBe(403);
  expect((await t.json("POST", `${base}/move`, { from: "readme.txt", to: ".git/readme.txt" })).status).toBe(403);
  expect((await t.json("POST", `${base}/move`, { from: ".git", to: "not-git" })).status).toBe(403);
  expect(readFileSync(join(root, ".git", "config"), "utf8")).toBe(config);
  expect(existsSync(join(root, ".git", "hooks", "pre-commit"))).toBe(false);
});

test("a folder an agent turns into a link after a first read is refused on the next", async () => {
  const { root, outside } = folders();
  const { base } = await filesProject(t, root);
  const url = `${base}/content${query({ path: "sub/secret.txt" })}`;
  expect(await (await t.api(url)).text()).toBe("inside\n");
  renameSync(join(root, "sub"), join(root, "sub-real"));
  symlinkSync(outside, join(root, "sub"));
  const read = await t.api(url);
  expect(read.status).toBe(403);
  expect(await read.text()).not.toContain("OUTSIDE");
  expect((await t.api(url, { method: "PUT", body: "PWNED", headers: { "if-match": "*" } })).status).toBe(403);
  expect((await t.api(`${base}/content${query({ path: "sub/new.txt" })}`, { method: "PUT", body: "PWNED", headers: { "if-none-match": "*" } })).status).toBe(
    403,
  );
  outsideUnchanged(outside);
});

test("a folder that turns into a link between the check and the use: what was opened is used, a link opened is refused", () => {
  const { root, outside } = folders();
  const access = new FolderAccess(root);

  // Checked and opened, then swapped: the write goes into the folder that was checked, wherever it now is.
  const { folder, name } = access.openForWrite("sub/written.txt");
  renameSync(join(root, "sub"), join(root, "sub-real"));
  symlinkSync(outside, join(root, "sub"));
  writeFileSync(folder.child(name), "through the open folder\n");
  folder.close();
  expect(readFileSync(join(root, "sub-real", "written.txt"), "utf8")).toBe("through the open folder\n");
  outsideUnchanged(outside);

  // A name checked in an open folder that turns into a link before it is opened: not followed.
  const opened = access.openFolder("sub-real");
  renameSync(join(root, "sub-real", "secret.txt"), join(root, "sub-real", "was-secret.txt"));
  symlinkSync(join(outside, "secret.txt"), join(root, "sub-real", "secret.txt"));
  expect(() => access.openEntry(opened, "secret.txt")).toThrow("symbolic link");
  opened.close();
});

test("requests while an agent swaps a folder for a link to outside as fast as it can: never a byte from outside, never a file written there", async () => {
  const { root, outside } = folders();
  const { base } = await filesProject(t, root);
  const swapper = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "swap-folder.ts"), join(root, "sub"), outside], { stdout: "pipe" });
  try {
    const reader = swapper.stdout.getReader();
    await reader.read();
    const statuses = new Set<number>();
    for (let round = 0; round < 150; round++) {
      const read = await t.api(`${base}/content${query({ path: "sub/secret.txt" })}`);
      const text = await read.text();
      statuses.add(read.status);
      if (read.status === 200) expect(text).toBe("inside\n");
      else expect(text).not.toContain("OUTSIDE");
      const write = await t.api(`${base}/content${query({ path: `sub/new-${round}.txt` })}`, {
        method: "PUT",
        body: "new\n",
        headers: { "if-none-match": "*" },
      });
      statuses.add(write.status);
      await write.body?.cancel();
      expect(readdirSync(outside)).toEqual(["secret.txt"]);
    }
    // Some requests met the link: 403, or 404 while the folder was aside.
    expect([...statuses].filter((status) => ![200, 201, 403, 404].includes(status))).toEqual([]);
  } finally {
    swapper.kill();
    await swapper.exited;
  }
  outsideUnchanged(outside);
});

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorBody } from "../../src/schemas/common.ts";
import { ImportedSkills, SkillsListing } from "../../src/schemas/skills.ts";
import { makeBareRepo, makeBareRepoWith } from "../helpers/git-fixtures.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { echoAgentInProcess } from "./echo-agent-in-process.ts";

// Real skill folders and links in a temp HOME; the fake CLIs on the PATH make claude, codex, gemini
// and opencode present (goose reads no skills; echo's folder is in the data dir). The echo agent runs in
// this process, as `atrium acp-echo` would, on the folder the harness names.

const fixtures = join(import.meta.dir, "..", "fixtures");
const PATH = [join(fixtures, "fake-clis"), "/usr/bin", "/bin"].join(":");

let t: TestServer;
let dirs: Record<string, string>;
const home = makeTempDir("atrium-skills-home-");

// One server for the file; each test starts from an empty HOME and empty skill folders in the data dir.
beforeAll(async () => {
  t = await startTestServer({
    tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 }, sessions: { openAgentChannel: echoAgentInProcess } } },
  });
  dirs = {
    claude: join(home.path, ".claude", "skills"),
    codex: join(home.path, ".agents", "skills"),
    gemini: join(home.path, ".gemini", "skills"),
    opencode: join(home.path, ".config", "opencode", "skills"),
    echo: join(t.dataDir, "echo-skills"),
  };
});
beforeEach(() => {
  for (const folder of [home.path, join(t.dataDir, "skills"), dirs.echo!]) {
    for (const name of existsSync(folder) ? readdirSync(folder) : []) rmSync(join(folder, name), { recursive: true, force: true });
  }
});
afterAll(async () => {
  await t.stop();
  home.remove();
});

const skillText = (name: string, body = "Do the thing.") => `---\nname: ${name}\ndescription: >\n  What ${name}\n  does.\n---\n\n${body}\n`;

function writeSkill(dir: string, folder: string, name: string, body?: string) {
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, "SKILL.md"), skillText(name, body));
}

async function listing(): Promise<SkillsListing> {
  const answer = await t.json<SkillsListing>("GET", "/v1/skills");
  expect(answer.status).toBe(200);
  assertMatchesSchema(SkillsListing, answer.body);
  return answer.body;
}

const set = (body: SkillsListing, harnessId: string) => body.harnesses.find((each) => each.harnessId === harnessId)!;
const isLinkTo = (path: string, target: string) => lstatSync(path).isSymbolicLink() && readlinkSync(path) === target;

describe("GET /v1/skills", () => {
  test("every harness that reads skills, its folder, and each skill read fresh and classified", async () => {
    writeSkill(dirs.claude!, "review", "review");
    writeSkill(dirs.codex!, "review", "review", "Review differently.");
    mkdirSync(join(dirs.gemini!, "broken"), { recursive: true });
    writeFileSync(join(dirs.gemini!, "broken", "SKILL.md"), "no front matter here\n");
    mkdirSync(join(dirs.gemini!, "nameless"), { recursive: true });
    writeFileSync(join(dirs.gemini!, "nameless", "SKILL.md"), "---\ndescription: no name\n---\n");
    mkdirSync(join(dirs.gemini!, "empty"), { recursive: true });
    mkdirSync(dirs.opencode!, { recursive: true });
    symlinkSync(join(home.path, "nowhere"), join(dirs.opencode!, "gone"));
    symlinkSync(join(dirs.opencode!, "loop"), join(dirs.opencode!, "loop"));

    const body = await listing();
    expect(body.canonicalDir).toBe(join(t.dataDir, "skills"));
    expect(body.global).toEqual([]);
    expect(body.harnesses.map((each) => each.harnessId).sort()).toEqual(["claude", "codex", "echo", "gemini", "opencode"]);
    expect(set(body, "claude")).toMatchObject({ harnessName: "Claude Code", skillsDir: dirs.claude });
    expect(set(body, "claude").skills).toEqual([
      {
        harnessId: "claude",
        directoryName: "review",
        name: "review",
        description: "What review does.",
        path: join(dirs.claude!, "review"),
        invalid: false,
        classification: "duplicate",
        duplicateOf: "codex",
      },
    ]);
    const gemini = Object.fromEntries(set(body, "gemini").skills.map((skill) => [skill.directoryName, skill]));
    expect(gemini.broken).toMatchObject({ name: "broken", invalid: true, classification: "independent", duplicateOf: null });
    expect(gemini.nameless).toMatchObject({ name: "nameless", description: "no name", invalid: true });
    expect(gemini.empty).toMatchObject({ name: "empty", invalid: true });
    const opencode = Object.fromEntries(set(body, "opencode").skills.map((skill) => [skill.directoryName, skill]));
    expect(opencode.gone).toMatchObject({ classification: "broken-link", invalid: true });
    expect(opencode.loop).toMatchObject({ classification: "broken-link", invalid: true });

    // Fresh: a skill added on disk is there on the next read.
    writeSkill(dirs.echo!, "notes", "notes");
    expect(set(await listing(), "echo").skills.map((skill) => skill.name)).toEqual(["notes"]);
  });
});

describe("making a skill global", () => {
  test("moves the folder into Atrium's, links it back and into every other harness; a harness with its own keeps it", async () => {
    writeSkill(dirs.claude!, "review", "review");
    writeSkill(dirs.codex!, "review", "review", "Codex's own review.");
    const before = await t.json<{ cursor: number }>("GET", "/v1/events/cursor");
    const answer = await t.json<SkillsListing>("POST", "/v1/skills/make-global", { harnessId: "claude", directoryName: "review" });
    expect(answer.status).toBe(200);
    assertMatchesSchema(SkillsListing, answer.body);
    const canonical = join(t.dataDir, "skills", "review");
    expect(readFileSync(join(canonical, "SKILL.md"), "utf8")).toContain("Do the thing.");
    expect(isLinkTo(join(dirs.claude!, "review"), canonical)).toBe(true);
    expect(isLinkTo(join(dirs.gemini!, "review"), canonical)).toBe(true);
    expect(isLinkTo(join(dirs.echo!, "review"), canonical)).toBe(true);
    expect(readFileSync(join(dirs.codex!, "review", "SKILL.md"), "utf8")).toContain("Codex's own review.");
    expect(answer.body.global).toEqual([
      {
        name: "review",
        directoryName: "review",
        description: "What review does.",
        path: canonical,
        invalid: false,
        installs: [
          { harnessId: "claude", state: "linked" },
          { harnessId: "codex", state: "conflict" },
          { harnessId: "gemini", state: "linked" },
          { harnessId: "opencode", state: "linked" },
          { harnessId: "echo", state: "linked" },
        ],
      },
    ]);
    expect(set(answer.body, "claude").skills[0]).toMatchObject({ classification: "linked", duplicateOf: null });
    expect(set(answer.body, "codex").skills[0]).toMatchObject({ classification: "duplicate", duplicateOf: "global" });
    const events = (await replayedEvents(t, before.body.cursor)).filter((event) => event.kind === "skills.changed");
    expect(events.map((event) => event.payload)).toEqual([{ skills: ["review"] }]);

    const again = await t.json<{ error: string }>("POST", "/v1/skills/make-global", { harnessId: "codex", directoryName: "review" });
    expect(again.status).toBe(409);
    assertMatchesSchema(ErrorBody, again.body);
    expect(again.body.error).toContain("a global skill named review exists already");
  });

  test("a failure half way puts everything back as it was", async () => {
    writeSkill(dirs.claude!, "review", "review");
    // Gemini's skills folder cannot be made: a file stands where its .gemini folder would be.
    writeFileSync(join(home.path, ".gemini"), "not a folder");
    const answer = await t.json<{ error: string }>("POST", "/v1/skills/make-global", { harnessId: "claude", directoryName: "review" });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toContain("could not make review global");
    expect(answer.body.error).toContain("undone");
    expect(lstatSync(join(dirs.claude!, "review")).isDirectory()).toBe(true);
    expect(readFileSync(join(dirs.claude!, "review", "SKILL.md"), "utf8")).toContain("Do the thing.");
    expect(existsSync(join(t.dataDir, "skills", "review"))).toBe(false);
    for (const harness of ["codex", "opencode", "echo"]) expect(existsSync(join(dirs[harness]!, "review"))).toBe(false);
    expect((await listing()).global).toEqual([]);
  });

  test("bad names are 400, unknown harnesses and folders 404, and nothing changes", async () => {
    writeSkill(dirs.claude!, "review", "review");
    for (const directoryName of ["..", ".hidden", "a/b", "a\u0000b", ""]) {
      const answer = await t.json<{ error: string }>("POST", "/v1/skills/make-global", { harnessId: "claude", directoryName });
      expect(answer.status).toBe(400);
      assertMatchesSchema(ErrorBody, answer.body);
    }
    expect((await t.json("POST", "/v1/skills/make-global", { harnessId: "nope", directoryName: "review" })).status).toBe(404);
    expect((await t.json("POST", "/v1/skills/make-global", { harnessId: "goose", directoryName: "review" })).status).toBe(404);
    expect((await t.json("POST", "/v1/skills/make-global", { harnessId: "claude", directoryName: "absent" })).status).toBe(404);
    expect(lstatSync(join(dirs.claude!, "review")).isDirectory()).toBe(true);
    expect((await listing()).global).toEqual([]);
  });
});

describe("installing, uninstalling and removing a global skill", () => {
  test("links go in and out; a harness's own folder is never touched; removing takes only Atrium's links", async () => {
    writeSkill(dirs.echo!, "notes", "notes");
    expect((await t.json("POST", "/v1/skills/make-global", { harnessId: "echo", directoryName: "notes" })).status).toBe(200);
    const canonical = join(t.dataDir, "skills", "notes");

    const removed = await t.json<SkillsListing>("DELETE", "/v1/skills/notes/install/gemini");
    expect(removed.status).toBe(200);
    expect(existsSync(join(dirs.gemini!, "notes"))).toBe(false);
    expect(removed.body.global[0]!.installs.map((install) => install.harnessId)).not.toContain("gemini");
    expect((await t.json("DELETE", "/v1/skills/notes/install/gemini")).status).toBe(404);

    const installed = await t.json<SkillsListing>("POST", "/v1/skills/notes/install", { harnessIds: ["gemini"] });
    expect(installed.status).toBe(200);
    expect(isLinkTo(join(dirs.gemini!, "notes"), canonical)).toBe(true);

    // Codex gets its own folder of that name: install and uninstall refuse to touch it.
    rmSync(join(dirs.codex!, "notes"));
    writeSkill(dirs.codex!, "notes", "notes", "Codex's notes.");
    expect((await t.json("POST", "/v1/skills/notes/install", { harnessIds: ["codex"] })).status).toBe(409);
    expect((await t.json("DELETE", "/v1/skills/notes/install/codex")).status).toBe(409);
    expect((await t.json("POST", "/v1/skills/absent/install", { harnessIds: ["codex"] })).status).toBe(404);
    expect((await t.json("POST", "/v1/skills/notes/install", { harnessIds: ["nope"] })).status).toBe(404);

    const gone = await t.json<SkillsListing>("DELETE", "/v1/skills/notes");
    expect(gone.status).toBe(200);
    expect(gone.body.global).toEqual([]);
    expect(existsSync(canonical)).toBe(false);
    for (const harness of ["claude", "gemini", "opencode", "echo"]) expect(existsSync(join(dirs[harness]!, "notes"))).toBe(false);
    expect(readFileSync(join(dirs.codex!, "notes", "SKILL.md"), "utf8")).toContain("Codex's notes.");
    expect((await t.json("DELETE", "/v1/skills/notes")).status).toBe(404);
  });
});

describe("importing skills (endpoint 10)", () => {
  /** A bare repository (the remote) whose `skills/` holds two skills, one with a link pointing outside it. */
  function skillsRepository(): { url: string } {
    const repo = makeBareRepoWith(home.path, "team-skills", {
      "README.md": "# team-skills\n",
      "skills/review/SKILL.md": skillText("review"),
      "skills/review/leak": { link: "/etc/hostname" },
      "skills/nested/deploy/SKILL.md": skillText("deploy"),
    });
    return { url: repo.url };
  }

  test("a folder of a git repository: every skill is imported into Atrium's folder, links inside left out", async () => {
    const repo = skillsRepository();
    const before = await t.json<{ cursor: number }>("GET", "/v1/events/cursor");
    const answer = await t.json<ImportedSkills>("POST", "/v1/skills/import-remote", { source: `${repo.url}/tree/main/skills` });
    expect(answer.status).toBe(200);
    assertMatchesSchema(ImportedSkills, answer.body);
    const canonical = join(t.dataDir, "skills");
    expect(answer.body).toEqual({
      dir: canonical,
      skills: [
        { name: "deploy", directoryName: "deploy", description: "What deploy does.", path: join(canonical, "deploy"), invalid: false },
        { name: "review", directoryName: "review", description: "What review does.", path: join(canonical, "review"), invalid: false },
      ],
    });
    expect(existsSync(join(canonical, "review", "leak"))).toBe(false);
    expect(readdirSync(canonical).sort()).toEqual(["deploy", "review"]);
    expect((await listing()).global.map((skill) => skill.name)).toEqual(["deploy", "review"]);
    const events = (await replayedEvents(t, before.body.cursor)).filter((event) => event.kind === "skills.changed");
    expect(events.map((event) => event.payload)).toEqual([{ skills: ["deploy", "review"] }]);

    // The same again: refused whole, nothing changed.
    const again = await t.json<{ error: string }>("POST", "/v1/skills/import-remote", { source: `${repo.url}/tree/main/skills` });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain("deploy, review exist already");
  });

  test("chosen by name from a local folder; an unknown name is 400 listing what is there", async () => {
    const folder = join(home.path, "downloaded");
    writeSkill(folder, "one", "one");
    writeSkill(folder, "two", "two");
    const unknown = await t.json<{ error: string }>("POST", "/v1/skills/import-remote", { source: folder, skillNames: ["three"] });
    expect(unknown.status).toBe(400);
    assertMatchesSchema(ErrorBody, unknown.body);
    expect(unknown.body.error).toBe("no skill named three in the source; it has: one, two");
    const answer = await t.json<ImportedSkills>("POST", "/v1/skills/import-remote", { source: folder, skillNames: ["two"] });
    expect(answer.status).toBe(200);
    expect(answer.body.skills.map((skill) => skill.name)).toEqual(["two"]);
    expect(readdirSync(join(t.dataDir, "skills"))).toEqual(["two"]);
  });

  test("option-like URLs, remote helpers, sources without skills and oversized skills are refused, and nothing is left", async () => {
    for (const source of ["-uupload-pack=touch /tmp/x", "ext::sh -c touch% /tmp/x", "https://host/org/repo/tree/-x/skills", "relative/folder"]) {
      const answer = await t.json<{ error: string }>("POST", "/v1/skills/import-remote", { source });
      expect(answer.status).toBe(400);
      assertMatchesSchema(ErrorBody, answer.body);
    }
    const empty = makeBareRepo(home.path, "no-skills");
    expect((await t.json("POST", "/v1/skills/import-remote", { source: empty.url })).status).toBe(400);
    const big = join(home.path, "big");
    writeSkill(big, "huge", "huge");
    // 21 MiB as its size says, without writing them: a sparse file.
    writeFileSync(join(big, "huge", "data.bin"), "");
    truncateSync(join(big, "huge", "data.bin"), 21 * 1024 * 1024);
    const tooLarge = await t.json<{ error: string }>("POST", "/v1/skills/import-remote", { source: big });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toContain("20 MiB");
    expect(readdirSync(join(t.dataDir, "skills"))).toEqual([]);
  });
});

describe("sessions", () => {
  test("a session's agent sees the skills linked into its harness's folder", async () => {
    writeSkill(dirs.claude!, "review", "review");
    const ask = async (sessionId: string, index: number) => {
      await t.json("POST", `/v1/sessions/${sessionId}/prompts`, { text: "/skills" });
      const detail = await until(
        async () => (await t.json<{ conversation: Array<{ text: string; isGenerating: boolean }> }>("GET", `/v1/sessions/${sessionId}`)).body,
        (body) => body.conversation[index]?.isGenerating === false,
      );
      return detail.conversation[index]!.text;
    };
    const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
    const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo" });
    expect(await ask(session.body.id, 1)).toBe("No skills.");
    expect((await t.json("POST", "/v1/skills/make-global", { harnessId: "claude", directoryName: "review" })).status).toBe(200);
    expect(await ask(session.body.id, 3)).toBe("Skills:\nreview: What review does.");
  });
});

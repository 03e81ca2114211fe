import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { geminiTrustsFolder } from "../../src/harness/definitions/gemini-folder-trust.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";

// Gemini CLI 0.61 starts no MCP server in a folder it does not trust (its McpClientManager returns
// early), so a session there is told why its servers go unused. The rules are Gemini's own.

const home = makeTempDir("atrium-gemini-trust-");
afterAll(() => home.remove());
const projects = join(home.path, "projects");
const project = join(projects, "app");
mkdirSync(join(project, "sub"), { recursive: true });
mkdirSync(join(home.path, ".gemini"), { recursive: true });
const rules = (value: Record<string, string>) => writeFileSync(join(home.path, ".gemini", "trustedFolders.json"), JSON.stringify(value));
const settings = (value: unknown) => writeFileSync(join(home.path, ".gemini", "settings.json"), JSON.stringify(value));

describe("whether Gemini trusts a folder", () => {
  test("no rule is not trusted; a folder rule covers what is below it; the longest rule wins", () => {
    expect(geminiTrustsFolder(project, {}, home.path)).toBe(false);
    rules({ [projects]: "TRUST_FOLDER" });
    expect(geminiTrustsFolder(join(project, "sub"), {}, home.path)).toBe(true);
    rules({ [projects]: "TRUST_FOLDER", [project]: "DO_NOT_TRUST" });
    expect(geminiTrustsFolder(project, {}, home.path)).toBe(false);
    expect(geminiTrustsFolder(join(projects, "other"), {}, home.path)).toBe(true);
  });

  test("TRUST_PARENT trusts the rule's parent; a link is followed to where it leads", () => {
    rules({ [join(projects, "marker")]: "TRUST_PARENT" });
    expect(geminiTrustsFolder(project, {}, home.path)).toBe(true);
    const link = join(home.path, "link-to-app");
    symlinkSync(project, link);
    rules({ [project]: "TRUST_FOLDER" });
    expect(geminiTrustsFolder(link, {}, home.path)).toBe(true);
    expect(geminiTrustsFolder(`${project}-other`, {}, home.path)).toBe(false);
  });

  test("the environment overrides the file; folder trust turned off trusts everything", () => {
    rules({});
    expect(geminiTrustsFolder(project, { GEMINI_CLI_TRUST_WORKSPACE: "true" }, home.path)).toBe(true);
    rules({ [project]: "TRUST_FOLDER" });
    expect(geminiTrustsFolder(project, { GEMINI_CLI_TRUST_WORKSPACE: "false" }, home.path)).toBe(false);
    expect(geminiTrustsFolder(project, { GEMINI_RESTRICTED_MODE: "true" }, home.path)).toBe(false);
    const elsewhere = join(home.path, "elsewhere.json");
    writeFileSync(elsewhere, "{}");
    expect(geminiTrustsFolder(project, { GEMINI_CLI_TRUSTED_FOLDERS_PATH: elsewhere }, home.path)).toBe(false);
    rules({});
    settings({ security: { folderTrust: { enabled: false } } });
    expect(geminiTrustsFolder(project, {}, home.path)).toBe(true);
  });
});

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Harness, HarnessList } from "../../src/schemas/harnesses.ts";
import { node, npm, npmInstallGlobal, registryUnreachable } from "../helpers/npm-install.ts";

// The real CLIs, installed from the npm registry with the real npm, detected by a real server.
// Skipped only when the registry cannot be reached; every other failure (npm missing, an install that
// fails, a CLI that does not start) fails the test.

type HarnessBody = Static<typeof Harness>;

const PACKAGES = [
  { id: "claude", pkg: "@anthropic-ai/claude-code" },
  { id: "codex", pkg: "@openai/codex" },
  { id: "gemini", pkg: "@google/gemini-cli" },
] as const;

const unreachable = await registryUnreachable("@openai/codex");
if (unreachable) console.warn(`real-install.test.ts: skipped, the npm registry is unreachable (${unreachable})`);

/** What `<cli> --version` prints, run here, with the same environment the server probes with. */
function versionPrinted(executable: string, env: Record<string, string>): { output: string; version: string } {
  const result = spawnSync(executable, ["--version"], { env, encoding: "utf8", timeout: 60_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${executable} --version exited with ${result.status}: ${result.stderr}`);
  // e.g. "2.1.197 (Claude Code)", "codex-cli 0.169.0", "0.61.0"; codex may add a warning on stderr.
  const version = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(result.stdout)?.[1];
  if (!version) throw new Error(`${executable} --version printed no version on stdout: ${JSON.stringify(result.stdout)}`);
  return { output: result.stdout.trim(), version };
}

let t: TestServer | undefined;
const dirs: Array<ReturnType<typeof makeTempDir>> = [];

afterAll(async () => {
  await t?.stop();
  for (const dir of dirs) dir.remove();
});

describe("the real harness CLIs from npm", () => {
  test.skipIf(unreachable !== undefined)(
    "npm installs claude-code, codex and gemini-cli; detection reports each ready with the version its --version prints",
    async () => {
      expect(npm, "npm is not on the PATH").toBeTruthy();
      expect(node, "node is not on the PATH").toBeTruthy();
      const prefixDir = makeTempDir("atrium-real-prefix-");
      const homeDir = makeTempDir("atrium-real-home-");
      dirs.push(prefixDir, homeDir);
      // The real path: the server reports what it finds on the PATH, and /tmp may be a symlink (macOS).
      const prefix = realpathSync(prefixDir.path);
      const bin = join(prefix, "bin");

      // One npm run for all three, as a user would: `npm install -g` into our own prefix, with the
      // shared npm cache and install scripts on (claude-code's postinstall puts its native binary in
      // place of bin/claude.exe; gemini-cli's optional node-pty and keytar build or fetch theirs).
      const installMs = await npmInstallGlobal(prefix, PACKAGES.map((p) => p.pkg), { cwd: homeDir.path, timeoutMs: 200_000 });
      console.info(`real-install.test.ts: npm install took ${installMs} ms`);

      // node on the PATH for the two CLIs that are node scripts (#!/usr/bin/env node); /usr/bin and /bin for the rest.
      const harnessEnv = { PATH: [bin, dirname(node!), "/usr/bin", "/bin"].join(":"), HOME: homeDir.path };
      const expected = PACKAGES.map(({ id, pkg }) => {
        const installed = JSON.parse(readFileSync(join(prefix, "lib", "node_modules", ...pkg.split("/"), "package.json"), "utf8")) as { version: string };
        return { id, pkg, packageVersion: installed.version, ...versionPrinted(join(bin, id), harnessEnv) };
      });
      for (const entry of expected) {
        // Each CLI prints exactly the version npm installed.
        expect(entry.version, `${entry.id} --version printed ${JSON.stringify(entry.output)}`).toBe(entry.packageVersion);
      }
      console.info(`real-install.test.ts: ${expected.map((e) => `${e.pkg}@${e.packageVersion} prints ${JSON.stringify(e.output)}`).join("; ")}`);

      // gemini --version alone takes about 2 s of node start-up; the scan runs all probes at once, so
      // allow far more than the 5 s default on a busy 2-core machine.
      t = await startTestServer({ harnessEnv, probeTimeoutMs: 60_000 });
      await t.ready();
      const { status, body } = await t.json<HarnessBody[]>("GET", "/v1/harnesses");
      expect(status).toBe(200);
      assertMatchesSchema(HarnessList, body);
      for (const entry of expected) {
        const harness = body.find((candidate) => candidate.id === entry.id);
        expect(harness, `${entry.id} is in the list`).toBeDefined();
        assertMatchesSchema(Harness, harness);
        expect(harness!.readiness).toEqual({ state: "ready", detail: null, path: join(bin, entry.id), version: entry.version });
        expect(harness!.readiness.path!.startsWith(prefix + sep)).toBe(true);
        expect(harness!.enabled).toBe(true);
      }
    },
    240_000,
  );
});

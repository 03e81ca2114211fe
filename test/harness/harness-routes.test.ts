import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { Harness, HarnessList } from "../../src/schemas/harnesses.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import type { EventRecord } from "../../src/schemas/events.ts";

type HarnessBody = Static<typeof Harness>;

const fixtures = join(import.meta.dir, "..", "fixtures");
// The fakes first; /usr/bin and /bin only for the shell and sleep the fakes themselves use. Qwen and
// Copilot, which hang and fail, are on the PATH of the one test about them: every other scan would
// wait out the hang.
const PATH = [join(fixtures, "fake-clis"), "/usr/bin", "/bin"].join(":");
const HANGING_PATH = [join(fixtures, "fake-clis"), join(fixtures, "hanging-cli"), "/usr/bin", "/bin"].join(":");
const PROBE_TIMEOUT_MS = 1000;

let t: TestServer;
let home: ReturnType<typeof makeTempDir>;
let startCursor: number;

beforeAll(async () => {
  home = makeTempDir("atrium-home-");
  t = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: PROBE_TIMEOUT_MS } } } });
  startCursor = await t.ready();
});
afterAll(async () => {
  await t.stop();
  home.remove();
});

const byId = (list: HarnessBody[]) => Object.fromEntries(list.map((harness) => [harness.id, harness]));

async function harnessEvents(after: number): Promise<Array<Static<typeof EventRecord>>> {
  return (await replayedEvents(t, after)).filter((event) => event.kind === "harness.updated");
}

describe("harness detection", () => {
  test("the first scan at start-up reports every harness, valid against the schema", async () => {
    const { status, body } = await t.json<HarnessBody[]>("GET", "/v1/harnesses");
    expect(status).toBe(200);
    assertMatchesSchema(HarnessList, body);
    expect(body.map((harness) => harness.id)).toEqual(["claude", "codex", "gemini", "opencode", "qwen", "copilot", "goose", "echo"]);
    const events = await harnessEvents(0);
    expect(new Set(events.map((event) => event.subjectId)).size).toBe(8);
    expect(startCursor).toBe(8);
  });

  test("ready harnesses report path and the version their --version prints", async () => {
    const harnesses = byId((await t.json<HarnessBody[]>("POST", "/v1/harnesses/rescan")).body);
    // Ready means a session can start: the CLI and its ACP adapter (versioned by its npm package, as the
    // real adapters print no version) are both there.
    expect(harnesses.claude!.readiness).toEqual({
      state: "ready",
      detail: "ACP adapter claude-agent-acp 0.49.0",
      path: join(fixtures, "fake-clis", "claude"),
      version: "2.1.104",
    });
    expect(harnesses.codex!.readiness).toMatchObject({ state: "ready", version: "0.45.0", detail: "ACP adapter codex-acp 0.16.0" });
    expect(harnesses.gemini!.readiness.version).toBe("0.9.0");
    expect(harnesses.opencode!.readiness.version).toBe("0.15.2");
    expect(harnesses.goose!.readiness.version).toBe("1.9.3");
    expect(harnesses.echo!).toMatchObject({ launchKind: "builtin", enabled: true, readiness: { state: "ready" } });
    expect(harnesses.claude!.enabled).toBe(true);
  });

  test("a CLI that hangs is cut off by the time limit and reported but stays ready; one that fails is an error with its reason", async () => {
    const t3 = await startTestServer({
      tuning: { modules: { harnesses: { env: { PATH: HANGING_PATH, HOME: home.path }, probeTimeoutMs: PROBE_TIMEOUT_MS } } },
    });
    const started = performance.now();
    // The scan this asks for is the start-up's, if that one runs already: concurrent scans are one.
    const harnesses = byId((await t3.json<HarnessBody[]>("POST", "/v1/harnesses/rescan")).body);
    // Every probe runs in parallel, so the whole scan takes about one time limit, not 30 s of sleep.
    expect(performance.now() - started).toBeLessThan(PROBE_TIMEOUT_MS * 4);
    await t3.stop();
    // Slow is not broken (gemini --version takes 4 s on a busy 2-core machine): sessions can still start.
    expect(harnesses.qwen!.readiness).toMatchObject({ state: "ready", version: null });
    expect(harnesses.qwen!.readiness.detail).toContain(`did not answer within ${PROBE_TIMEOUT_MS} ms`);
    expect(harnesses.qwen!.enabled).toBe(true);
    expect(harnesses.copilot!.readiness.state).toBe("error");
    expect(harnesses.copilot!.readiness.detail).toContain("exited with 1: copilot: cannot find module");
  });

  test("a harness not on the PATH is missing, with how to install it", async () => {
    const t2 = await startTestServer({
      tuning: { modules: { harnesses: { env: { PATH: "/nonexistent", HOME: home.path }, probeTimeoutMs: PROBE_TIMEOUT_MS } } },
    });
    await t2.ready();
    const claude = (await t2.json<HarnessBody>("GET", "/v1/harnesses/claude")).body;
    expect(claude.readiness).toEqual({
      state: "missing",
      detail: "claude is not on the service's PATH; its ACP adapter claude-agent-acp (npm @agentclientprotocol/claude-agent-acp) is not on the service's PATH",
      path: null,
      version: null,
    });
    expect(claude.enabled).toBe(false);
    expect(claude.installHint).toContain("@anthropic-ai/claude-code");
    // One install brings the CLI and its adapter; Homebrew has no adapter, so it is not offered.
    expect(claude.installMethods.map((method) => [method.id, method.available, method.command])).toEqual([
      ["npm", false, "npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp"],
    ]);
    expect(claude.installMethods.filter((method) => method.recommended)).toHaveLength(1);
    const gemini = (await t2.json<HarnessBody>("GET", "/v1/harnesses/gemini")).body;
    expect(gemini.installMethods.map((method) => method.id)).toEqual(["npm", "brew"]);
    await t2.stop();
  });

  test("a CLI without its ACP adapter, or an adapter without its CLI, is missing and says which part", async () => {
    const only = (names: string[]) => {
      const dir = makeTempDir("atrium-partial-path-");
      for (const name of names) symlinkSync(join(fixtures, "fake-clis", name), join(dir.path, name));
      return dir;
    };
    for (const [names, missingPart, present] of [
      [["claude", "codex"], "claude-agent-acp", "claude"],
      [["claude-agent-acp", "codex-acp"], "claude is not on", "claude-agent-acp"],
    ] as const) {
      const bin = only([...names]);
      const t2 = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH: bin.path, HOME: home.path }, probeTimeoutMs: PROBE_TIMEOUT_MS } } } });
      await t2.ready();
      const harnesses = byId((await t2.json<HarnessBody[]>("GET", "/v1/harnesses")).body);
      for (const id of ["claude", "codex"]) {
        assertMatchesSchema(Harness, harnesses[id]);
        expect(harnesses[id]!.readiness.state).toBe("missing");
        expect(harnesses[id]!.enabled).toBe(false);
      }
      expect(harnesses.claude!.readiness.detail).toContain(missingPart);
      expect(harnesses.claude!.readiness.detail).not.toContain(`${present} is not on`);
      // A session is refused with the reason, not only the state.
      const project = await t2.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
      const refused = await t2.json<{ error: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "claude" });
      expect(refused.status).toBe(409);
      assertMatchesSchema(ErrorBody, refused.body);
      expect(refused.body.error).toContain(`Claude Code is missing (`);
      expect(refused.body.error).toContain(missingPart);
      await t2.stop();
      bin.remove();
    }
  });
});

describe("login state", () => {
  test("logged out: unauthenticated where the CLI can tell, unknown where it cannot", async () => {
    const harnesses = byId((await t.json<HarnessBody[]>("POST", "/v1/harnesses/auth/refresh")).body);
    expect(harnesses.claude!.auth.state).toBe("unauthenticated");
    expect(harnesses.codex!.auth.state).toBe("unauthenticated");
    expect(harnesses.gemini!.auth.state).toBe("unauthenticated");
    expect(harnesses.opencode!.auth.state).toBe("unauthenticated");
    expect(harnesses.goose!.auth.state).toBe("unknown");
    expect(harnesses.goose!.auth.detail).toContain("no offline login check");
  });

  test("logged in: read from the CLIs' own status commands and files", async () => {
    mkdirSync(join(home.path, ".claude"), { recursive: true });
    writeFileSync(join(home.path, ".claude", ".credentials.json"), "{}");
    mkdirSync(join(home.path, ".codex"), { recursive: true });
    writeFileSync(join(home.path, ".codex", "auth.json"), "{}");
    mkdirSync(join(home.path, ".gemini"), { recursive: true });
    writeFileSync(join(home.path, ".gemini", "google_accounts.json"), JSON.stringify({ active: "dev@gmail.example", old: [] }));
    mkdirSync(join(home.path, ".local", "share", "opencode"), { recursive: true });
    writeFileSync(join(home.path, ".local", "share", "opencode", "auth.json"), JSON.stringify({ anthropic: { type: "api", key: "x" } }));
    const before = await t.json<{ cursor: number }>("GET", "/v1/events/cursor");
    const harnesses = byId((await t.json<HarnessBody[]>("POST", "/v1/harnesses/auth/refresh")).body);
    assertMatchesSchema(Harness, harnesses.claude);
    expect(harnesses.claude!.auth).toMatchObject({ state: "authenticated", activeAccountId: "claude:default", supportsMultipleAccounts: true });
    expect(harnesses.claude!.auth.accounts[0]).toMatchObject({
      email: "dev@example.com",
      organizationId: "org-123",
      authMethod: "claude.ai",
      authState: "authenticated",
      isActive: true,
    });
    expect(harnesses.codex!.auth.accounts[0]).toMatchObject({ authState: "authenticated", authMethod: "chatgpt" });
    expect(harnesses.gemini!.auth.accounts[0]).toMatchObject({ authState: "authenticated", email: "dev@gmail.example" });
    expect(harnesses.opencode!.auth.accounts[0]).toMatchObject({ authState: "authenticated", authMethod: "anthropic" });
    const changed = (await harnessEvents(before.body.cursor)).map((event) => event.subjectId).sort();
    expect(changed).toEqual(["claude", "codex", "gemini", "opencode"]);
    // Nothing changed since: a second refresh appends nothing.
    const cursor = (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
    await t.json("POST", "/v1/harnesses/auth/refresh");
    expect((await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor).toBe(cursor);
  });

  test("Codex signed in with an API key is authenticated; its warning lines are not the detail", async () => {
    writeFileSync(join(home.path, ".codex", "auth.json"), JSON.stringify({ OPENAI_API_KEY: "sk-test" }));
    const harnesses = byId((await t.json<HarnessBody[]>("POST", "/v1/harnesses/auth/refresh")).body);
    expect(harnesses.codex!.auth).toMatchObject({ state: "authenticated", detail: null });
    expect(harnesses.codex!.auth.accounts[0]).toMatchObject({ authState: "authenticated", authMethod: "api_key", detail: null });
    writeFileSync(join(home.path, ".codex", "auth.json"), "{}");
  });
});

describe("enable and disable", () => {
  test("an override disables a harness; null follows the default again", async () => {
    const disabled = await t.json<HarnessBody>("PATCH", "/v1/harnesses/claude", { enabled: false });
    expect(disabled.status).toBe(200);
    assertMatchesSchema(Harness, disabled.body);
    expect(disabled.body).toMatchObject({ enabled: false, desiredEnabled: false, settings: { global: { enabled: true }, override: { enabled: false } } });
    expect((await t.json<HarnessBody>("GET", "/v1/harnesses/claude")).body.enabled).toBe(false);
    const reset = await t.json<HarnessBody>("PATCH", "/v1/harnesses/claude", { enabled: null });
    expect(reset.body).toMatchObject({ enabled: true, desiredEnabled: true, settings: { override: null } });
  });

  test("unknown ids are 404 and bad bodies 400, changing nothing", async () => {
    for (const [method, path] of [
      ["GET", "/v1/harnesses/nope"],
      ["PATCH", "/v1/harnesses/nope"],
    ] as const) {
      const response = await t.json(method, path, method === "PATCH" ? { enabled: true } : undefined);
      expect(response.status).toBe(404);
      assertMatchesSchema(ErrorBody, response.body);
    }
    const bad = await t.json<{ error: string }>("PATCH", "/v1/harnesses/claude", { enabled: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('"enabled"');
    expect((await t.json<HarnessBody>("GET", "/v1/harnesses/claude")).body.desiredEnabled).toBe(true);
  });
});

describe("harnesses from config.json", () => {
  test("are listed with source config; a built-in id is refused at start", async () => {
    const custom = await startTestServer({
      config: { harnesses: [{ id: "my-agent", name: "My agent", executable: "gemini", acpArgs: ["--acp"] }] },
      tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: PROBE_TIMEOUT_MS } } },
    });
    await custom.ready();
    const mine = (await custom.json<HarnessBody>("GET", "/v1/harnesses/my-agent")).body;
    expect(mine).toMatchObject({ source: "config", name: "My agent", readiness: { state: "ready", version: "0.9.0" }, auth: { state: "unknown" } });
    await custom.stop();
    await expect(startTestServer({ config: { harnesses: [{ id: "claude", name: "x", executable: "x" }] } })).rejects.toThrow("built-in id");
  });
});

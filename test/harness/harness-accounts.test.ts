import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { startFakeRegistry, type FakeRegistry } from "../helpers/fake-registry.ts";
import { Harness, HarnessAccount } from "../../src/schemas/harnesses.ts";
import { ErrorBody } from "../../src/schemas/common.ts";

type HarnessBody = Static<typeof Harness>;
type AccountBody = Static<typeof HarnessAccount>;

const fixtures = join(import.meta.dir, "..", "fixtures");
const PATH = [join(fixtures, "fake-clis"), join(fixtures, "fake-npm"), "/usr/bin", "/bin"].join(":");

let t: TestServer;
let home: ReturnType<typeof makeTempDir>;

async function start(extraEnv: Record<string, string> = {}, harnessUpdateCheck = false): Promise<void> {
  home = makeTempDir("atrium-accounts-");
  t = await startTestServer({
    config: { harnessUpdateCheck },
    tuning: { modules: { harnesses: { env: { PATH, HOME: home.path, ...extraEnv }, probeTimeoutMs: 2000 } } },
  });
}

afterEach(async () => {
  await t.stop();
  home.remove();
});

const harness = async (id: string) => (await t.json<HarnessBody>("GET", `/v1/harnesses/${id}`)).body;

describe("accounts", () => {
  test("an added account has its own config home, its own login, and becomes what the harness reports when active", async () => {
    await start();
    await t.ready();
    // The default account is logged in; the new one starts logged out.
    mkdirSync(join(home.path, ".claude"), { recursive: true });
    writeFileSync(join(home.path, ".claude", ".credentials.json"), "{}");
    await t.json("POST", "/v1/harnesses/auth/refresh");
    const added = await t.json<AccountBody>("POST", "/v1/harnesses/claude/accounts", { label: "Work" });
    expect(added.status).toBe(201);
    assertMatchesSchema(HarnessAccount, added.body);
    expect(added.body).toMatchObject({ harnessId: "claude", profileKind: "profile", label: "Work", isActive: false });
    const accountId = added.body.id;

    const checked = await until(
      () => harness("claude"),
      (h) => h.auth.accounts.find((a) => a.id === accountId)?.authState === "unauthenticated",
    );
    const work = checked.auth.accounts.find((a) => a.id === accountId)!;
    const configHome = /CLAUDE_CONFIG_DIR='([^']+)'/.exec(work.detail ?? "")?.[1];
    expect(configHome).toStartWith(join(t.dataDir, "accounts", "claude"));
    expect(statSync(configHome!).mode & 0o777).toBe(0o700);
    expect(work.detail).toContain("claude auth login");
    expect(checked.auth).toMatchObject({ state: "authenticated", activeAccountId: "claude:default", supportsMultipleAccounts: true });

    // Log in to the new config home the way the CLI would, then activate it.
    writeFileSync(join(configHome!, ".credentials.json"), "{}");
    const activated = await t.json<HarnessBody>("POST", `/v1/harnesses/claude/accounts/${accountId}/activate`);
    expect(activated.status).toBe(200);
    assertMatchesSchema(Harness, activated.body);
    expect(activated.body.auth.activeAccountId).toBe(accountId);
    const refreshed = (await t.json<HarnessBody[]>("POST", "/v1/harnesses/auth/refresh")).body.find((h) => h.id === "claude")!;
    expect(refreshed.auth.accounts.find((a) => a.id === accountId)).toMatchObject({ authState: "authenticated", email: "dev@example.com", isActive: true });

    // New sessions of the harness start with the active account.
    const project = (await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true })).body;
    const session = await t.json<{ harnessAccountId: string }>("POST", "/v1/sessions", { projectId: project.id, harnessId: "claude" });
    expect(session.body.harnessAccountId).toBe(accountId);

    // Removing the active account deletes its config home and falls back to the default.
    const removed = await t.json<HarnessBody>("DELETE", `/v1/harnesses/claude/accounts/${accountId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.auth.activeAccountId).toBe("claude:default");
    expect(removed.body.auth.accounts.map((a) => a.id)).toEqual(["claude:default"]);
    expect(existsSync(configHome!)).toBe(false);
  });

  test("labels: PATCH renames, null restores the default label, an empty body changes nothing; the active account survives a restart", async () => {
    await start();
    await t.ready();
    const added = (await t.json<AccountBody>("POST", "/v1/harnesses/codex/accounts", {})).body;
    expect(added.label).toBe("Account 2");
    const renamed = await t.json<AccountBody>("PATCH", `/v1/harnesses/codex/accounts/${added.id}`, { label: "Personal" });
    expect(renamed.status).toBe(200);
    assertMatchesSchema(HarnessAccount, renamed.body);
    expect(renamed.body.label).toBe("Personal");
    const unchanged = await t.api(`/v1/harnesses/codex/accounts/${added.id}`, { method: "PATCH" });
    expect(unchanged.status).toBe(200);
    expect(((await unchanged.json()) as AccountBody).label).toBe("Personal");
    const defaultRenamed = await t.json<AccountBody>("PATCH", "/v1/harnesses/codex/accounts/codex:default", { label: "Main" });
    expect(defaultRenamed.body).toMatchObject({ label: "Main", profileKind: "default" });
    expect((await t.json<AccountBody>("PATCH", "/v1/harnesses/codex/accounts/codex:default", { label: null })).body.label).toBe("Default");
    await t.json("POST", `/v1/harnesses/codex/accounts/${added.id}/activate`);

    t = await t.restart();
    await t.ready();
    const after = await harness("codex");
    expect(after.auth.activeAccountId).toBe(added.id);
    expect(after.auth.accounts.map((a) => a.label)).toEqual(["Default", "Personal"]);
  });

  test("refusals change nothing: no second account where the CLI has one config home, default not removable, unknown ids, bad labels", async () => {
    await start();
    await t.ready();
    const before = await harness("claude");
    const gemini = await t.json<{ error: string }>("POST", "/v1/harnesses/gemini/accounts", { label: "x" });
    expect(gemini.status).toBe(400);
    assertMatchesSchema(ErrorBody, gemini.body);
    expect(gemini.body.error).toContain("cannot have more accounts");
    const removeDefault = await t.json<{ error: string }>("DELETE", "/v1/harnesses/claude/accounts/claude:default");
    expect(removeDefault.status).toBe(409);
    expect((await t.json("PATCH", "/v1/harnesses/claude/accounts/claude:nope", { label: "x" })).status).toBe(404);
    expect((await t.json("POST", "/v1/harnesses/claude/accounts/claude:nope/activate")).status).toBe(404);
    expect((await t.json("POST", "/v1/harnesses/nope/accounts", {})).status).toBe(404);
    const empty = await t.json<{ error: string }>("PATCH", "/v1/harnesses/claude/accounts/claude:default", { label: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain("label");
    const missing = await t.json<{ error: string }>("POST", "/v1/harnesses/goose/accounts", {});
    expect(missing.status).toBe(400);
    expect(await harness("claude")).toEqual(before);
  });
});

describe("latest versions (asked of the npm registry over HTTP, on demand, kept across restarts)", () => {
  let registry: FakeRegistry | undefined;
  const cleanupsAfter: Array<() => void> = [];
  afterEach(() => {
    registry?.stop();
    registry = undefined;
    for (const cleanup of cleanupsAfter.splice(0)) cleanup();
  });

  test("nothing is asked at start; a client's read asks the registry npm is configured with, and an older installed version is an update", async () => {
    registry = startFakeRegistry("2.5.0");
    home = makeTempDir("atrium-accounts-");
    const data = makeTempDir("atrium-latest-data-");
    cleanupsAfter.push(() => data.remove());
    // Where npm itself would look: the user's ~/.npmrc (the environment would win over it).
    writeFileSync(join(home.path, ".npmrc"), `; a comment\nregistry=${registry.url}\n`);
    const options = {
      dataDir: data.path,
      config: { harnessUpdateCheck: true },
      tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 } } },
    };
    t = await startTestServer(options);
    await t.ready();
    expect(registry.asked).toEqual([]);
    const claude = await until(
      () => harness("claude"),
      (h) => h.updateInfo.checkedAt !== null,
    );
    assertMatchesSchema(Harness, claude);
    expect(claude.updateInfo).toMatchObject({
      installedVersion: "2.1.104",
      latestVersion: "2.5.0",
      updateAvailable: true,
      source: "npm:@anthropic-ai/claude-code",
      notes: null,
    });
    expect(registry.asked).toContain("@anthropic-ai/claude-code");
    const echo = await harness("echo");
    expect(echo.updateInfo).toMatchObject({ latestVersion: null, updateAvailable: false, notes: "updated together with Atrium" });

    // A restart keeps the answers: the first read shows them, and the registry is not asked again.
    await until(
      async () => registry!.asked.length,
      (count) => count >= 5,
    );
    const askedBefore = registry.asked.length;
    await t.stop();
    t = await startTestServer(options);
    await t.ready();
    expect((await harness("claude")).updateInfo).toMatchObject({ latestVersion: "2.5.0", updateAvailable: true });
    await Bun.sleep(100);
    expect(registry.asked.length).toBe(askedBefore);
  });

  test("offline: no update, and notes say why", async () => {
    await start({ npm_config_registry: "http://127.0.0.1:9/" }, true);
    await t.ready();
    const codex = await until(
      () => harness("codex"),
      (h) => h.updateInfo.checkedAt !== null,
    );
    expect(codex.updateInfo.latestVersion).toBeNull();
    expect(codex.updateInfo.updateAvailable).toBe(false);
    expect(codex.updateInfo.notes).toContain("could not be reached");
  });

  test("a slow registry holds nothing up: reads answer at once, the look-up runs in the background", async () => {
    registry = startFakeRegistry("2.5.0", { delayMs: 30_000 });
    await start({ npm_config_registry: registry.url }, true);
    const began = Date.now();
    await t.ready();
    expect((await harness("claude")).updateInfo.notes).toBe("the latest version has not been checked yet");
    expect(Date.now() - began).toBeLessThan(5000);
  });
});

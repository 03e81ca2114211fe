import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorBody } from "../../src/schemas/common.ts";
import { OpenedPane, Plugin, PluginDiscovery, PluginEvents, PluginList, PluginUpdatePlan } from "../../src/schemas/plugins.ts";
import { runAtrium, builtCommand } from "../helpers/cli-process.ts";
import { demoManifest, pluginRepo, writePlugin } from "../helpers/plugin-fixtures.ts";
import { until } from "../helpers/poll.ts";
import { processAlive } from "../helpers/processes.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { replayedEvents } from "../helpers/sse-client.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { MovableClock } from "../helpers/movable-clock.ts";
import { DEFAULT_PANE_TIMINGS } from "../../src/plugins/plugin-panes.ts";
import { HEALTH_REQUEST_TIMEOUT_MS } from "../../src/plugins/plugin-processes.ts";

// Real plugins: git repositories (local bare ones stand in for remotes) and folders holding a Bun
// server, installed and run by a real server; their processes are real children.

/** `bun` for the plugins' commands (the test runner's own executable is `bun.exe` in its package). */
const PATH = [join(import.meta.dir, "..", "..", "node_modules", ".bin"), "/usr/bin", "/bin"].join(":");
const PANE_SANDBOX = "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads";
const scratch = makeTempDir("atrium-plugins-");
/** The server's clock: the real one, moved on past a pane's or a health check's time limit. */
const clock = new MovableClock();
/** How often a running plugin is asked; the wedged plugin's test moves the clock this far to ask at once. */
const HEALTH_INTERVAL_MS = 500;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    tuning: {
      clock,
      modules: {
        plugins: {
          env: { PATH, HOME: scratch.path },
          processes: { startTimeoutMs: 10_000, healthIntervalMs: HEALTH_INTERVAL_MS, restartBackoffMs: [20, 40], maxCrashes: 3, crashWindowMs: 60_000 },
          serverVersion: "1.0.0",
        },
      },
    },
  });
});
afterAll(async () => {
  await t.stop();
  scratch.remove();
});
afterEach(async () => {
  for (const plugin of (await t.json<PluginList>("GET", "/v1/plugins")).body.plugins) await t.json("DELETE", `/v1/plugins/${plugin.id}`);
});

async function expectError(answer: Promise<{ status: number; body: unknown }>, status: number, words: string): Promise<void> {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  assertMatchesSchema(ErrorBody, body);
  expect((body as { error: string }).error).toContain(words);
}

async function discover(source: string): Promise<PluginDiscovery> {
  const answer = await t.json<PluginDiscovery>("POST", "/v1/plugins/discover-remote", { source });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  assertMatchesSchema(PluginDiscovery, answer.body);
  return answer.body;
}

async function install(source: string): Promise<Plugin> {
  const { consentKey } = await discover(source);
  const answer = await t.json<Plugin>("POST", "/v1/plugins/install", { source, consentKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  assertMatchesSchema(Plugin, answer.body);
  return answer.body;
}

const plugin = async (id: string) => {
  const answer = await t.json<Plugin>("GET", `/v1/plugins/${id}`);
  assertMatchesSchema(Plugin, answer.body);
  return answer.body;
};
const inState = (id: string, state: Plugin["state"]) =>
  until(
    () => plugin(id),
    (found) => found.state === state,
    20_000,
  );
/** The pid of the plugin's process, asked through an open pane's URL (the demo server answers /pid). */
const pluginPid = async (paneUrl: string) => Number(await (await fetch(new URL("../../pid", paneUrl))).text());
/** Resolves once the process has ended. */
const ended = (pid: number) =>
  until(
    async () => processAlive(pid),
    (alive) => !alive,
    15_000,
  );
const folderOf = (name: string, manifest: Record<string, unknown>) => {
  const folder = join(scratch.path, name);
  writePlugin(folder, manifest);
  return folder;
};

describe("discovery and consent", () => {
  test("a git source is read without installing or running anything; the consent key covers what would run", async () => {
    const repo = pluginRepo(scratch.path, "discover", demoManifest("1.0.0"));
    const found = await discover(repo.url);
    expect(found).toMatchObject({ id: "demo", version: "1.0.0", alreadyInstalled: false, runCommand: "bun demo-server.ts", sourceRepo: repo.url });
    expect(found.installCommand).toBe(`sh -c 'printf '\\''%s'\\'' "$(pwd)" > setup-ran'`);
    expect(found.sourceCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(readdirSync(join(t.dataDir, "plugins"))).toEqual([]);
    repo.publish(demoManifest("1.0.0", { runCommand: ["bun", "other.ts"] }));
    expect((await discover(repo.url)).consentKey).not.toBe(found.consentKey);
  });

  test("a manifest that is wrong is a 400 naming the field; a source without one says so", async () => {
    await expectError(
      t.json("POST", "/v1/plugins/discover-remote", { source: folderOf("bad", demoManifest("1.0.0", { runCommand: "bun server.ts" })) }),
      400,
      'field "runCommand"',
    );
    await expectError(t.json("POST", "/v1/plugins/discover-remote", { source: folderOf("reserved", demoManifest("1.0.0", { id: "mcp" })) }), 400, 'field "id"');
    await expectError(t.json("POST", "/v1/plugins/discover-remote", { source: scratch.path }), 400, "no atrium-plugin.json");
    await expectError(t.json("POST", "/v1/plugins/discover-remote", { source: "--upload-pack=evil" }), 400, "");
  });

  test("install refuses a changed plugin, a too old server and a missing program (named, with its hint); nothing is installed", async () => {
    const folder = folderOf("refusals", demoManifest("1.0.0"));
    const { consentKey } = await discover(folder);
    writePlugin(folder, demoManifest("1.0.1"));
    await expectError(t.json("POST", "/v1/plugins/install", { source: folder, consentKey }), 409, "changed since it was consented to");
    const newer = folderOf("newer", demoManifest("1.0.0", { minServiceVersion: "99.0.0" }));
    await expectError(t.json("POST", "/v1/plugins/install", { source: newer, consentKey: (await discover(newer)).consentKey }), 409, "needs Atrium 99.0.0");
    const needy = folderOf(
      "needy",
      demoManifest("1.0.0", { requirements: { executables: [{ name: "no-such-tool", installHint: "apt install no-such-tool", helpUrl: "" }] } }),
    );
    await expectError(
      t.json("POST", "/v1/plugins/install", { source: needy, consentKey: (await discover(needy)).consentKey }),
      409,
      "needs no-such-tool, which is not on the PATH: apt install no-such-tool",
    );
    const failing = folderOf("failing", demoManifest("1.0.0", { setupCommands: [{ argv: ["sh", "-c", "echo 'cannot build' >&2; exit 3"], platforms: [] }] }));
    await expectError(
      t.json("POST", "/v1/plugins/install", { source: failing, consentKey: (await discover(failing)).consentKey }),
      409,
      "failed with exit code 3: cannot build",
    );
    expect((await t.json<PluginList>("GET", "/v1/plugins")).body.plugins).toEqual([]);
    expect(existsSync(join(t.dataDir, "plugins", "demo"))).toBe(false);
  });
});

describe("an installed plugin", () => {
  test("setup runs in its folder, its process starts and answers, progress is told as events", async () => {
    const cursor = await t.ready();
    const repo = pluginRepo(scratch.path, "installed", demoManifest("1.0.0"));
    const installed = await install(repo.url);
    expect(installed).toMatchObject({ id: "demo", enabled: true, source: "managed", canRestore: false, openPaneCount: 0 });
    expect(readFileSync(join(installed.path, "setup-ran"), "utf8")).toBe(installed.path);
    expect(existsSync(join(installed.path, ".git"))).toBe(false);
    const running = await inState("demo", "running");
    expect(running.lastError).toBeNull();
    await expectError(t.json("POST", "/v1/plugins/install", { source: repo.url, consentKey: installed.consentKey }), 409, "installed already");
    expect((await discover(repo.url)).alreadyInstalled).toBe(true);
    const events = await replayedEvents(t, cursor);
    const progress = events
      .filter((event) => event.kind === "plugin.install.progress")
      .map((event) => event.payload as { step: string; terminalId: string | null });
    expect(progress.map((each) => each.step)).toEqual(["fetching", "setup", "done"]);
    const terminal = await t.json<{ command: string; exitCode: number }>("GET", `/v1/terminals/${progress[1]!.terminalId}`);
    expect(terminal.body).toMatchObject({ exitCode: 0 });
    expect(terminal.body.command).toStartWith("sh -c");
    for (const event of events.filter((each) => each.kind === "plugin.updated")) assertMatchesSchema(PluginEvents["plugin.updated"], event.payload);
    expect(events.some((event) => event.kind === "plugin.updated" && (event.payload as { plugin: Plugin }).plugin.state === "running")).toBe(true);
  });

  test("tools: the input is checked against the inputSchema, then passed on", async () => {
    await install(folderOf("tools", demoManifest("1.0.0")));
    await inState("demo", "running");
    const answer = await t.json<{ sum: number }>("POST", "/v1/plugins/demo/tools/add", { a: 2, b: 3 });
    expect(answer).toEqual({ status: 200, body: { sum: 5, version: "1.0.0" } as { sum: number } });
    await expectError(t.json("POST", "/v1/plugins/demo/tools/add", { a: "two", b: 3 }), 400, "/a");
    await expectError(t.json("POST", "/v1/plugins/demo/tools/add", { a: 1 }), 400, "b");
    await expectError(t.json("POST", "/v1/plugins/demo/tools/nope", {}), 404, "no tool nope");
  });

  test("panes: the URL loads without the bearer header, Atrium's token and cookies never reach the plugin, closing ends it", async () => {
    await install(folderOf("panes", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open");
    expect(opened.status).toBe(200);
    assertMatchesSchema(OpenedPane, opened.body);
    expect(opened.body.url).toStartWith(`${t.url}/v1/plugins/demo/panes/pt_`);
    const page = await fetch(opened.body.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("board of demo 1.0.0");
    expect(await (await fetch(new URL("app.js", opened.body.url))).text()).toContain("console.log");
    const seen = (await (
      await fetch(new URL("headers", opened.body.url), { headers: { authorization: `Bearer ${t.token}`, cookie: "atrium=1" } })
    ).json()) as Record<string, string>;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(t.token);
    expect(await (await fetch(new URL("form", opened.body.url), { method: "POST", body: "x=1" })).text()).toBe("got x=1");
    expect((await plugin("demo")).openPaneCount).toBe(1);
    await expectError(t.json("POST", "/v1/plugins/demo/panes/nope/open"), 404, "no pane nope");

    const closed = await t.json<Plugin>("DELETE", `/v1/plugins/demo/panes/${opened.body.ticket}`);
    expect(closed.body.openPaneCount).toBe(0);
    expect((await fetch(opened.body.url)).status).toBe(404);
  });

  test("pane content is sandboxed to an opaque origin and open to any origin; a preflight is answered for an open pane's ticket only", async () => {
    await install(folderOf("isolated", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/probe/open")).body;
    const page = await fetch(opened.url);
    expect(page.status).toBe(200);
    // The plugin's own policy stays beside the sandbox: a browser enforces both.
    expect(page.headers.get("content-security-policy")).toBe(`object-src 'none', ${PANE_SANDBOX}`);
    expect(page.headers.get("access-control-allow-origin")).toBe("*");
    const script = await fetch(new URL("probe.js", opened.url), { headers: { origin: "null" } });
    expect(script.headers.get("content-security-policy")).toBe(PANE_SANDBOX);
    expect(script.headers.get("access-control-allow-origin")).toBe("*");

    const preflight = (ticket: string) =>
      fetch(`${t.url}/v1/plugins/demo/panes/${ticket}/api/echo`, {
        method: "OPTIONS",
        headers: { origin: "null", "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-probe" },
      });
    const allowed = await preflight(opened.ticket);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("*");
    expect(allowed.headers.get("access-control-allow-methods")).toBe("GET, POST");
    expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type, x-probe");
    const echoed = await fetch(new URL("api/echo", opened.url), {
      method: "POST",
      headers: { origin: "null", "content-type": "application/json" },
      body: JSON.stringify({ said: "hi" }),
    });
    expect(echoed.headers.get("access-control-allow-origin")).toBe("*");
    expect(await echoed.json()).toEqual({ said: "hi", version: "1.0.0", origin: "null" });

    const refused = await preflight("pt_wrong");
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: string }).error).toContain("no open pane has this ticket");
    await t.json("DELETE", `/v1/plugins/demo/panes/${opened.ticket}`);
    expect((await preflight(opened.ticket)).status).toBe(404);
  });

  test("a pane's URL not loaded within its time expires", async () => {
    await install(folderOf("expiry", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open")).body;
    await clock.advance(DEFAULT_PANE_TIMINGS.firstUseMs);
    const late = await fetch(opened.url);
    expect(late.status).toBe(404);
    expect(((await late.json()) as { error: string }).error).toContain("expired or was closed");
    expect((await plugin("demo")).openPaneCount).toBe(0);
  });

  test("disabled, its process stops and its pane answers 502 naming the state; enabled, it runs again", async () => {
    await install(folderOf("disable", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open")).body;
    const pid = await pluginPid(opened.url);
    const disabled = await t.json<Plugin>("PATCH", "/v1/plugins/demo", { enabled: false });
    expect(disabled.body).toMatchObject({ enabled: false, state: "stopped" });
    await ended(pid);
    const refused = await fetch(opened.url);
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { error: string }).error).toContain("plugin demo is disabled: restart it");
    await expectError(t.json("POST", "/v1/plugins/demo/restart"), 409, "disabled");
    await t.json("PATCH", "/v1/plugins/demo", { enabled: true });
    await inState("demo", "running");
  });
});

describe("supervision", () => {
  test("after kill -9 of its process the plugin is started again", async () => {
    await install(folderOf("supervised", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open")).body;
    const pid = await pluginPid(opened.url);
    process.kill(pid, "SIGKILL");
    const back = await until(
      async () => ((await plugin("demo")).state === "running" ? await pluginPid(opened.url) : 0),
      (next) => next > 0 && next !== pid,
      20_000,
    );
    expect(processAlive(back)).toBe(true);
    expect((await plugin("demo")).lastError).toBeNull();
  });

  test("a plugin that stops answering its health check is stopped and started again", async () => {
    await install(folderOf("wedged", demoManifest("1.0.0")));
    await inState("demo", "running");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open")).body;
    const pid = await pluginPid(opened.url);
    expect(await (await fetch(new URL("freeze", opened.url), { method: "POST" })).text()).toBe("frozen");
    // The next health check is due now, not up to an interval later; it reaches the plugin and gets no
    // answer; its time limit passes.
    await clock.advance(HEALTH_INTERVAL_MS);
    await until(
      async () => Number(await (await fetch(new URL("held", opened.url))).text()),
      (held) => held > 0,
    );
    await clock.advance(HEALTH_REQUEST_TIMEOUT_MS);
    await ended(pid);
    const back = await inState("demo", "running");
    expect(back.lastError).toBeNull();
    expect(await pluginPid(opened.url)).not.toBe(pid);
  });

  test("a plugin that crashes at start is failed after repeated crashes, with the reason; its panes answer 502; the CLI lists it", async () => {
    const crashing = demoManifest("1.0.0", { id: "crashy", runCommand: ["sh", "-c", "echo 'no config file' >&2; exit 7"] });
    await install(folderOf("crashy", crashing));
    const failed = await inState("crashy", "failed");
    expect(failed.lastError).toContain("exited with code 7: no config file");
    expect(failed.lastError).toContain("3 times within 60 s");
    const opened = (await t.json<OpenedPane>("POST", "/v1/plugins/crashy/panes/board/open")).body;
    const refused = await fetch(opened.url);
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { error: string }).error).toContain("plugin crashy is failed (exited with code 7");

    // The two lists and the refused restart at once; the restart that changes what they list after them.
    const [listed, json, unknown] = await Promise.all([
      runAtrium(builtCommand, ["plugin", "list"], t.dataDir),
      runAtrium(builtCommand, ["plugin", "list", "--json"], t.dataDir),
      runAtrium(builtCommand, ["plugin", "restart", "nope"], t.dataDir),
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/crashy\s+1\.0\.0\s+failed\s+yes\s+1\s+exited with code 7/);
    const plugins = JSON.parse(json.stdout) as Plugin[];
    for (const each of plugins) assertMatchesSchema(Plugin, each);
    const restarted = await runAtrium(builtCommand, ["plugin", "restart", "crashy"], t.dataDir);
    expect(restarted.stdout).toContain("crashy 1.0.0: starting");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no plugin nope");
  });

  test("stopping the server stops every plugin process", async () => {
    const own = await startTestServer({ tuning: { modules: { plugins: { env: { PATH, HOME: scratch.path }, serverVersion: "1.0.0" } } } });
    let pid = 0;
    try {
      const source = folderOf("stopped-with-server", demoManifest("1.0.0"));
      const { consentKey } = (await own.json<PluginDiscovery>("POST", "/v1/plugins/discover-remote", { source })).body;
      await own.json("POST", "/v1/plugins/install", { source, consentKey });
      await until(
        async () => (await own.json<Plugin>("GET", "/v1/plugins/demo")).body.state,
        (state) => state === "running",
        20_000,
      );
      const opened = (await own.json<OpenedPane>("POST", "/v1/plugins/demo/panes/board/open")).body;
      pid = await pluginPid(opened.url);
    } finally {
      await own.stop();
    }
    await ended(pid);
  });
});

describe("updates", () => {
  test("plan, apply (the version before kept), restore; a stale or unknown plan is 409", async () => {
    const repo = pluginRepo(scratch.path, "updates", demoManifest("1.0.0"));
    const first = await install(repo.url);
    await expectError(t.json("POST", "/v1/plugins/demo/update/plan"), 409, "up to date");
    repo.publish(demoManifest("2.0.0", { panes: [] }));
    const plan = await t.json<PluginUpdatePlan>("POST", "/v1/plugins/demo/update/plan");
    expect(plan.status).toBe(200);
    assertMatchesSchema(PluginUpdatePlan, plan.body);
    expect(plan.body).toMatchObject({ fromVersion: "1.0.0", toVersion: "2.0.0" });
    expect(plan.body.changes).toContain("version 1.0.0 → 2.0.0");
    expect(plan.body.changes).toContain("its panes changed");
    await expectError(t.json("POST", "/v1/plugins/demo/update/apply", { planId: "plan_unknown" }), 409, "no update plan plan_unknown");

    const applied = await t.json<Plugin>("POST", "/v1/plugins/demo/update/apply", { planId: plan.body.planId });
    expect(applied.status).toBe(200);
    assertMatchesSchema(Plugin, applied.body);
    expect(applied.body).toMatchObject({ version: "2.0.0", canRestore: true, consentKey: plan.body.consentKey });
    await inState("demo", "running");
    expect((await t.json<{ version: string }>("POST", "/v1/plugins/demo/tools/add", { a: 1, b: 1 })).body.version).toBe("2.0.0");
    await expectError(t.json("POST", "/v1/plugins/demo/update/apply", { planId: plan.body.planId }), 409, "no update plan");

    repo.publish(demoManifest("3.0.0"));
    const stale = (await t.json<PluginUpdatePlan>("POST", "/v1/plugins/demo/update/plan")).body;
    repo.publish(demoManifest("3.0.0", { runCommand: ["bun", "demo-server.ts", "--changed"] }));
    await expectError(t.json("POST", "/v1/plugins/demo/update/apply", { planId: stale.planId }), 409, "changed since it was consented to");
    expect((await plugin("demo")).version).toBe("2.0.0");

    const restored = await t.json<Plugin>("POST", "/v1/plugins/demo/restore");
    expect(restored.body).toMatchObject({ version: "1.0.0", canRestore: false, path: first.path });
    await inState("demo", "running");
    expect((await t.json<{ version: string }>("POST", "/v1/plugins/demo/tools/add", { a: 1, b: 1 })).body.version).toBe("1.0.0");
    expect(existsSync(applied.body.path)).toBe(false);
    await expectError(t.json("POST", "/v1/plugins/demo/restore"), 409, "no earlier version");
  });

  test("uninstall stops it and removes its folders; unknown ids are 404", async () => {
    const installed = await install(folderOf("removed", demoManifest("1.0.0")));
    await inState("demo", "running");
    const removed = await t.json<PluginList>("DELETE", "/v1/plugins/demo");
    expect(removed.status).toBe(200);
    assertMatchesSchema(PluginList, removed.body);
    expect(removed.body.plugins).toEqual([]);
    expect(existsSync(installed.path)).toBe(false);
    for (const [method, path] of [
      ["GET", "/v1/plugins/demo"],
      ["DELETE", "/v1/plugins/demo"],
      ["POST", "/v1/plugins/demo/restart"],
      ["POST", "/v1/plugins/demo/update/plan"],
    ] as const) {
      await expectError(t.json(method, path), 404, "no plugin demo");
    }
  });
});

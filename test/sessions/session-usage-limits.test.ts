import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { UsageLimits } from "../../src/schemas/sessions.ts";

type Limits = Static<typeof UsageLimits>;

const fixtures = join(import.meta.dir, "..", "fixtures");
const PATH = [join(fixtures, "fake-clis"), "/usr/bin", "/bin"].join(":");

let t: TestServer;
let home: ReturnType<typeof makeTempDir>;
afterEach(async () => {
  await t.stop();
  home.remove();
});

/** A ChatGPT login as Codex stores it: the id token's claims carry the email and plan. */
function writeCodexLogin(codexHome: string): void {
  const claims = { email: "dev@example.com", "https://api.openai.com/auth": { chatgpt_plan_type: "plus" } };
  const jwt = ["e30", Buffer.from(JSON.stringify(claims)).toString("base64url"), "sig"].join(".");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "auth.json"), JSON.stringify({ tokens: { id_token: jwt, access_token: "secret-access" } }));
}

/** One Codex session log with the limits its last turn reported. */
function writeCodexRollout(codexHome: string, loggedAt: Date): void {
  const dir = join(codexHome, "sessions", "2026", "11", "21");
  mkdirSync(dir, { recursive: true });
  const line = {
    timestamp: loggedAt.toISOString(),
    type: "event_msg",
    payload: {
      type: "token_count",
      info: null,
      rate_limits: {
        primary: { used_percent: 42.5, window_minutes: 300, resets_at: Math.floor(loggedAt.getTime() / 1000) + 3600 },
        secondary: { used_percent: 10, window_minutes: 10080, resets_at: Math.floor(loggedAt.getTime() / 1000) + 86_400 },
        credits: { has_credits: true, unlimited: false, balance: "12.50" },
        plan_type: "plus",
      },
    },
  };
  writeFileSync(join(dir, "rollout-2026-11-21T10-00-00-abc.jsonl"), `${JSON.stringify(line)}\n`);
}

async function sessionOf(harnessId: string, harnessAccountId?: string): Promise<string> {
  const project = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
  const created = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId, harnessAccountId });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe("usage limits (endpoint 15)", () => {
  test("Codex: the windows, credits and plan it logged, for the session's own account", async () => {
    home = makeTempDir("atrium-limits-");
    const loggedAt = new Date(Date.now() - 60_000);
    writeCodexLogin(join(home.path, ".codex"));
    writeCodexRollout(join(home.path, ".codex"), loggedAt);
    t = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 } } } });
    await until(
      () => t.json<Array<{ id: string; readiness: { state: string } }>>("GET", "/v1/harnesses"),
      (list) => list.body.find((harness) => harness.id === "codex")?.readiness.state === "ready",
    );

    const id = await sessionOf("codex");
    const limits = await t.json<Limits>("GET", `/v1/sessions/${id}/usage-limits`);
    expect(limits.status).toBe(200);
    assertMatchesSchema(UsageLimits, limits.body);
    expect(limits.body).toMatchObject({
      state: "available",
      harnessId: "codex",
      accountId: "codex:default",
      accountEmail: "dev@example.com",
      plan: "plus",
      credits: { hasCredits: true, unlimited: false, balance: "12.50" },
      detail: null,
      fetchedAt: loggedAt.toISOString(),
    });
    expect(limits.body.windows.map(({ id: slot, label, usedPercent, durationMinutes }) => ({ slot, label, usedPercent, durationMinutes }))).toEqual([
      { slot: "primary", label: "5 hours", usedPercent: 42.5, durationMinutes: 300 },
      { slot: "secondary", label: "Weekly", usedPercent: 10, durationMinutes: 10080 },
    ]);
    expect(JSON.stringify(limits.body)).not.toContain("secret-access");

    // A second account has its own config home, with no login and no logs.
    const account = await t.json<{ id: string }>("POST", "/v1/harnesses/codex/accounts", { label: "Work" });
    const other = await sessionOf("codex", account.body.id);
    const none = await t.json<Limits>("GET", `/v1/sessions/${other}/usage-limits`);
    assertMatchesSchema(UsageLimits, none.body);
    expect(none.body).toMatchObject({ state: "unavailable", accountId: account.body.id, accountLabel: "Work", windows: [], accountEmail: null });
    expect(none.body.detail).toContain("not signed in with ChatGPT");
  });

  test("a harness that keeps no limits says so; an unknown session is 404", async () => {
    home = makeTempDir("atrium-limits-");
    t = await startTestServer({ tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 } } } });
    await t.ready();
    const id = await sessionOf("echo");
    const limits = await t.json<Limits>("GET", `/v1/sessions/${id}/usage-limits`);
    assertMatchesSchema(UsageLimits, limits.body);
    expect(limits.body).toMatchObject({ state: "unavailable", harnessId: "echo", windows: [], credits: null });
    expect(limits.body.detail).toContain("does not expose its rate limits");
    expect((await t.json("GET", "/v1/sessions/ses_nope/usage-limits")).status).toBe(404);
  });
});

import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { until } from "../helpers/poll.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { type Harness, ProviderLoginAttempt } from "../../src/schemas/harnesses.ts";
import { ErrorBody } from "../../src/schemas/common.ts";

type Attempt = Static<typeof ProviderLoginAttempt>;
type HarnessBody = Static<typeof Harness>;

const fixtures = join(import.meta.dir, "..", "fixtures");
const PATH = [join(fixtures, "fake-clis"), "/usr/bin", "/bin"].join(":");
const LOGIN = "/v1/harnesses/opencode/providers";

let t: TestServer;
let home: ReturnType<typeof makeTempDir>;
let github: ReturnType<typeof Bun.serve> | undefined;

async function start(githubUrl?: string): Promise<void> {
  home = makeTempDir("atrium-login-");
  t = await startTestServer({ config: { githubUrl }, tuning: { modules: { harnesses: { env: { PATH, HOME: home.path }, probeTimeoutMs: 2000 } } } });
}

afterEach(async () => {
  await t.stop();
  home.remove();
  await github?.stop(true);
  github = undefined;
});

const authFile = () => join(home.path, ".local", "share", "opencode", "auth.json");

/** GitHub's device flow as a loopback server: the first poll is pending, the second grants a token. */
function fakeGitHub(): string {
  let polls = 0;
  github = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const form = new URLSearchParams(await request.text());
      const path = new URL(request.url).pathname;
      if (path === "/login/device/code" && form.get("client_id") && form.get("scope") === "read:user") {
        return Response.json({
          device_code: "dev-1",
          user_code: "ABCD-1234",
          verification_uri: "https://github.example/login/device",
          expires_in: 900,
          interval: 0.05,
        });
      }
      if (path === "/login/oauth/access_token" && form.get("device_code") === "dev-1") {
        polls += 1;
        return Response.json(polls < 2 ? { error: "authorization_pending" } : { access_token: "gho_fake", token_type: "bearer" });
      }
      return Response.json({ error: "bad_request" }, { status: 400 });
    },
  });
  return `http://127.0.0.1:${github.port}`;
}

describe("OpenCode provider login", () => {
  test("api_key: a secret prompt, answered, lands in OpenCode's auth.json (0600) and OpenCode reads as logged in", async () => {
    await start();
    await t.ready();
    expect((await t.json<HarnessBody>("GET", "/v1/harnesses/opencode")).body.auth.state).toBe("unauthenticated");
    const started = await t.json<Attempt>("POST", `${LOGIN}/anthropic/login`, { method: "api_key" });
    expect(started.status).toBe(201);
    assertMatchesSchema(ProviderLoginAttempt, started.body);
    expect(started.body).toMatchObject({ providerId: "anthropic", method: "api_key", state: "running", error: null });
    expect(started.body.prompt).toMatchObject({ id: "api_key", type: "secret" });

    const answered = await t.json<Attempt>("POST", `${LOGIN}/anthropic/login/${started.body.id}/respond`, { value: " sk-ant-test-123 " });
    expect(answered.status).toBe(200);
    assertMatchesSchema(ProviderLoginAttempt, answered.body);
    expect(answered.body).toMatchObject({ state: "succeeded", prompt: null });
    expect(JSON.stringify(answered.body)).not.toContain("sk-ant-test-123");
    expect(JSON.parse(readFileSync(authFile(), "utf8"))).toEqual({ anthropic: { type: "api", key: "sk-ant-test-123" } });
    expect(statSync(authFile()).mode & 0o777).toBe(0o600);

    // The harness is read again: OpenCode now counts as logged in, with that provider.
    const opencode = await until(
      async () => (await t.json<HarnessBody>("GET", "/v1/harnesses/opencode")).body,
      (h) => h.auth.state === "authenticated",
    );
    expect(opencode.auth.accounts[0]!.authMethod).toBe("anthropic");

    // A second provider keeps the first; the key never reaches the log or the database.
    const second = (await t.json<Attempt>("POST", `${LOGIN}/openai/login`, { method: "api_key" })).body;
    await t.json("POST", `${LOGIN}/openai/login/${second.id}/respond`, { value: "sk-openai-456" });
    expect(Object.keys(JSON.parse(readFileSync(authFile(), "utf8")))).toEqual(["anthropic", "openai"]);
    const log = readFileSync(join(t.dataDir, "logs", "atrium.log"), "utf8");
    expect(log).not.toContain("sk-ant-test-123");
    expect(readFileSync(join(t.dataDir, "atrium.db")).includes(Buffer.from("sk-openai-456"))).toBe(false);
  });

  test("oauth: the attempt shows the user code and verification URL, then succeeds when the code is entered", async () => {
    await start(fakeGitHub());
    await t.ready();
    const started = await t.json<Attempt>("POST", `${LOGIN}/github-copilot/login`, { method: "oauth" });
    expect(started.status).toBe(201);
    assertMatchesSchema(ProviderLoginAttempt, started.body);
    expect(started.body).toMatchObject({ state: "running", prompt: null });
    expect(started.body.event).toMatchObject({
      type: "device_code",
      userCode: "ABCD-1234",
      verificationUrl: "https://github.example/login/device",
      url: "https://github.example/login/device",
    });
    const done = await until(
      async () => (await t.json<Attempt>("GET", `${LOGIN}/github-copilot/login/${started.body.id}`)).body,
      (attempt) => attempt.state !== "running",
    );
    expect(done).toMatchObject({ state: "succeeded", error: null });
    expect(JSON.parse(readFileSync(authFile(), "utf8"))["github-copilot"]).toMatchObject({ type: "oauth", refresh: "gho_fake" });
  });

  test("oauth when the sign-in server cannot be reached: the attempt fails with the reason", async () => {
    await start("http://127.0.0.1:9");
    await t.ready();
    const started = await t.json<Attempt>("POST", `${LOGIN}/github-copilot/login`, { method: "oauth" });
    expect(started.status).toBe(201);
    expect(started.body.state).toBe("failed");
    expect(started.body.error).toContain("could not start the sign-in with 127.0.0.1:9");
  });

  test("cancel ends a running attempt; it cannot be answered or cancelled again, and nothing is written", async () => {
    await start();
    await t.ready();
    const started = (await t.json<Attempt>("POST", `${LOGIN}/anthropic/login`, { method: "api_key" })).body;
    const cancelled = await t.json<Attempt>("POST", `${LOGIN}/anthropic/login/${started.id}/cancel`);
    expect(cancelled.status).toBe(200);
    assertMatchesSchema(ProviderLoginAttempt, cancelled.body);
    expect(cancelled.body).toMatchObject({ state: "cancelled", prompt: null });
    expect(cancelled.body.finishedAt).not.toBeNull();
    const late = await t.json<{ error: string }>("POST", `${LOGIN}/anthropic/login/${started.id}/respond`, { value: "sk-late" });
    expect(late.status).toBe(409);
    expect(late.body.error).toContain("cancelled");
    expect((await t.json("POST", `${LOGIN}/anthropic/login/${started.id}/cancel`)).status).toBe(409);
    expect(existsSync(authFile())).toBe(false);
  });

  test("bad input: unknown method 400, oauth for a provider without sign-in 400, bad provider id 400, unknown attempt 404", async () => {
    await start();
    await t.ready();
    const method = await t.json<{ error: string }>("POST", `${LOGIN}/anthropic/login`, { method: "password" });
    expect(method.status).toBe(400);
    assertMatchesSchema(ErrorBody, method.body);
    expect(method.body.error).toContain("method");
    const oauth = await t.json<{ error: string }>("POST", `${LOGIN}/anthropic/login`, { method: "oauth" });
    expect(oauth.status).toBe(400);
    expect(oauth.body.error).toContain("use method api_key");
    expect((await t.json("POST", `${LOGIN}/Bad%20Id/login`, { method: "api_key" })).status).toBe(400);
    expect((await t.json("GET", `${LOGIN}/anthropic/login/login_nope`)).status).toBe(404);
    const started = (await t.json<Attempt>("POST", `${LOGIN}/anthropic/login`, { method: "api_key" })).body;
    // An attempt belongs to its provider.
    expect((await t.json("GET", `${LOGIN}/openai/login/${started.id}`)).status).toBe(404);
    const empty = await t.json<{ error: string }>("POST", `${LOGIN}/anthropic/login/${started.id}/respond`, { value: "" });
    expect(empty.status).toBe(400);
    expect((await t.json<Attempt>("GET", `${LOGIN}/anthropic/login/${started.id}`)).body.state).toBe("running");
    expect(existsSync(authFile())).toBe(false);
  });
});

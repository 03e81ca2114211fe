import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { PushPayload, PushSubscription, PushSubscriptionList, type PushEventKind } from "../../src/schemas/push.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { lockDatabase, logSays } from "../helpers/locked-database.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { until } from "../helpers/poll.ts";
import { LocalPushService, PushBrowser, type ReceivedPush, verifyVapid } from "../helpers/push-service.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { lastReply, startSessionServer, type SessionTestServer } from "../sessions/session-helpers.ts";

let t: SessionTestServer | undefined;
let push: LocalPushService;
beforeEach(() => {
  push = new LocalPushService();
});
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
  await push.stop();
});

function namedToken(server: SessionTestServer, name: string): string {
  return withStore(dataPaths(server.dataDir), (store) => new AccessTokens("unused", new TokenRepository(store)).create(name).token);
}

async function call<T>(server: SessionTestServer, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** A browser subscribed through the API to `/push/<name>` of the local push service. */
async function subscribe(server: SessionTestServer, token: string, name: string, events?: PushEventKind[]) {
  const browser = new PushBrowser();
  const created = await call<PushSubscription>(server, token, "POST", "/v1/push/subscriptions", {
    subscription: browser.subscription(push.endpoint(name)),
    name,
    ...(events ? { events } : {}),
  });
  expect(created.status).toBe(201);
  assertMatchesSchema(PushSubscription, created.body);
  return { browser, subscription: created.body };
}

async function subscriptions(server: SessionTestServer): Promise<PushSubscription[]> {
  const listed = await call<PushSubscriptionList>(server, server.token, "GET", "/v1/push/subscriptions");
  assertMatchesSchema(PushSubscriptionList, listed.body);
  return listed.body.subscriptions;
}

async function subscriptionNamed(server: SessionTestServer, name: string): Promise<PushSubscription | undefined> {
  return (await subscriptions(server)).find((subscription) => subscription.name === name);
}

/** The push as the browser's service worker reads it. */
function opened(browser: PushBrowser, received: ReceivedPush): PushPayload {
  const payload = JSON.parse(browser.decrypt(received.body)) as PushPayload;
  assertMatchesSchema(PushPayload, payload);
  return payload;
}

async function prompt(server: SessionTestServer, sessionId: string, text: string): Promise<void> {
  expect((await server.json("POST", `/v1/sessions/${sessionId}/prompts`, { text })).status).toBe(201);
}

async function titleOf(server: SessionTestServer, sessionId: string): Promise<{ projectId: string; title: string }> {
  const { session } = await server.detail(sessionId);
  const project = await server.json<{ name: string }>("GET", `/v1/projects/${session.projectId}`);
  return { projectId: session.projectId, title: `${project.body.name} · ${session.title}` };
}

const PERMISSION = { permission: { title: "Write hello.txt", options: [{ optionId: "allow", name: "Allow" }] } };

describe("Web Push", () => {
  test("a question is pushed, encrypted to the browser (aes128gcm) and signed for with VAPID; a form's message too", async () => {
    t = await startSessionServer({ agents: "in-process", config: { pushSubject: "mailto:someone@example.org" } });
    const server = t;
    server.script({
      prompts: {
        write: [{ chunk: "Writing it." }, PERMISSION, { chunk: "Done." }],
        form: [{ elicit: { message: "Sign in to the registry", properties: { password: { type: "string", title: "Password" } } } }],
      },
    });
    const session = await server.newSession();
    const phone = namedToken(server, "phone");
    const { browser, subscription } = await subscribe(server, phone, "phone");
    expect(subscription.tokenName).toBe("phone");

    await prompt(server, session.id, "write");
    const [received] = await push.waitFor("phone");
    const asking = await server.until(session.id, (d) => d.pendingQuestion !== null);
    expect(received!.headers.get("content-encoding")).toBe("aes128gcm");
    expect(received!.headers.get("content-type")).toBe("application/octet-stream");
    expect(received!.headers.get("ttl")).toBe("86400");
    expect(received!.headers.get("urgency")).toBe("high");
    expect(received!.headers.get("topic")).toBe(session.id);
    expect(opened(browser, received!)).toEqual({
      kind: "question",
      sessionId: session.id,
      ...(await titleOf(server, session.id)),
      body: "Write hello.txt — asks for permission",
      url: `/#/sessions/${session.id}`,
      tag: `session-${session.id}`,
    });

    // RFC 8292: signed with the key browsers subscribe with, for this push service, for at most a day.
    const vapid = verifyVapid(received!.headers.get("authorization"));
    expect(vapid.header).toMatchObject({ typ: "JWT", alg: "ES256" });
    expect(vapid.publicKey).toBe((await call<{ publicKey: string }>(server, phone, "GET", "/v1/push/vapid-key")).body.publicKey);
    expect(vapid.claims.aud).toBe(push.origin);
    expect(vapid.claims.sub).toBe("mailto:someone@example.org");
    const nowSeconds = Date.now() / 1000;
    expect(vapid.claims.exp).toBeGreaterThan(nowSeconds);
    expect(vapid.claims.exp).toBeLessThanOrEqual(nowSeconds + 24 * 60 * 60);

    const delivered = await until(
      () => subscriptionNamed(server, "phone"),
      (found) => found?.lastSuccessAt !== null,
    );
    expect(delivered).toMatchObject({ lastError: null });

    // Answered, the short turn ends: nothing more is pushed for it.
    await server.json("POST", `/v1/sessions/${session.id}/questions/${asking.pendingQuestion!.questionId}/answer`, {
      answers: { permission: { optionIds: ["allow"] } },
    });
    await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");

    // A form says its message; what is typed into it is never pushed (and never stored).
    await prompt(server, session.id, "form");
    const pushes = await push.waitFor("phone", 2);
    const form = opened(browser, pushes[1]!);
    expect(form).toMatchObject({ kind: "question", body: "Sign in to the registry" });
    const formQuestion = (await server.until(session.id, (d) => d.pendingQuestion !== null)).pendingQuestion!;
    await server.json("POST", `/v1/sessions/${session.id}/questions/${formQuestion.questionId}/answer`, { answers: { password: { text: "hunter2" } } });
    await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    // A later question's push: whatever the answer or the turn's end pushed would have come before it.
    await prompt(server, session.id, "write");
    const [, , later] = await push.waitFor("phone", 3);
    expect(opened(browser, later!)).toMatchObject({ kind: "question", body: "Write hello.txt — asks for permission" });
    expect(push.to("phone")).toHaveLength(3);
    for (const each of push.to("phone")) expect(browser.decrypt(each.body)).not.toContain("hunter2");
  });

  test("a plan waiting for approval, a turn longer than pushLongTurnSeconds and a failed turn are pushed; a short turn is not", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const server = t;
    server.script({
      prompts: {
        plan: [{ chunk: "Here is the plan." }, { mode: "default" }, { chunk: "Approve it?" }],
        long: [{ gate: "two minutes later" }, { chunk: "done" }],
        boom: [{ fail: { code: -32603, message: "Internal error" } }],
      },
    });
    const session = await server.newSession();
    const { browser } = await subscribe(server, server.token, "desk");
    const expected = await titleOf(server, session.id);

    await prompt(server, session.id, "plan");
    const planned = opened(browser, (await push.waitFor("desk", 1))[0]!);
    expect(planned).toMatchObject({ kind: "plan", sessionId: session.id, body: "A plan waits for your approval" });
    expect(push.to("desk")[0]!.headers.get("urgency")).toBe("high");
    await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn" && d.pendingPlanApproval);
    expect((await server.json("POST", `/v1/sessions/${session.id}/plan/approve`)).status).toBe(200);

    // Two minutes pass on the server's clock while the turn runs.
    await prompt(server, session.id, "long");
    await server.until(session.id, (d) => d.session.sidebarState === "working");
    await clock.advance(120_000);
    server.agents.openGate("two minutes later");
    const long = opened(browser, (await push.waitFor("desk", 2))[1]!);
    expect(long).toEqual({
      kind: "turn",
      sessionId: session.id,
      projectId: expected.projectId,
      title: `${expected.title.split(" · ")[0]} · ${(await server.detail(session.id)).session.title}`,
      body: "Finished after 2 min",
      url: `/#/sessions/${session.id}`,
      tag: `session-${session.id}`,
    });
    expect(push.to("desk")[1]!.headers.get("urgency")).toBe("normal");

    await prompt(server, session.id, "boom");
    const failed = opened(browser, (await push.waitFor("desk", 3))[2]!);
    expect(failed).toMatchObject({ kind: "failed", sessionId: session.id, body: "Ended in error" });
    expect(push.to("desk")).toHaveLength(3);
  });

  test("a subscription gets only the kinds it asked for", async () => {
    t = await startSessionServer({ agents: "in-process" });
    const server = t;
    server.script({ prompts: { boom: [{ fail: { code: -32603, message: "Internal error" } }], ask: [PERMISSION] } });
    const session = await server.newSession();
    const failures = await subscribe(server, server.token, "failures", ["failed"]);
    const questions = await subscribe(server, server.token, "questions", ["question"]);
    await prompt(server, session.id, "boom");
    expect(opened(failures.browser, (await push.waitFor("failures"))[0]!).kind).toBe("failed");
    await prompt(server, session.id, "ask");
    await push.waitFor("questions");
    // Answered, and failed again: that push comes after anything the question pushed to "failures".
    const asking = await server.until(session.id, (d) => d.pendingQuestion !== null);
    await server.json("POST", `/v1/sessions/${session.id}/questions/${asking.pendingQuestion!.questionId}/answer`, {
      answers: { permission: { optionIds: ["allow"] } },
    });
    await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    await prompt(server, session.id, "boom");
    await push.waitFor("failures", 2);
    const kinds = (name: string, browser: PushBrowser) => push.to(name).map((received) => opened(browser, received).kind);
    expect(kinds("failures", failures.browser)).toEqual(["failed", "failed"]);
    expect(kinds("questions", questions.browser)).toEqual(["question"]);
  });

  test("410 removes the subscription; 500, 503 and 429 are tried again on the server's clock (Retry-After honoured, in seconds or as a date) until they give up", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const server = t;
    server.script({ prompts: { ask: [PERMISSION] } });
    const session = await server.newSession();
    push.answer("gone", { status: 410 });
    push.answer("flaky", { status: 500 });
    push.answer("busy", { status: 429, headers: { "retry-after": "30" } });
    push.answer("broken", { status: 500 }, { status: 503 }, { status: 502 }, { status: 500 });
    push.answer("dated", { status: 503, headers: { "retry-after": new Date(clock.now() + 45_000).toUTCString() } });
    const gone = await subscribe(server, server.token, "gone");
    const flaky = await subscribe(server, server.token, "flaky");
    await subscribe(server, server.token, "busy");
    await subscribe(server, server.token, "broken");
    await subscribe(server, server.token, "dated");
    // The server's other timers (compaction's first pass): while the question waits, the clock's other
    // timers are the retries, so their count says when one is scheduled and that none has fired.
    const others = clock.waiting;
    const retriesWaiting = (count: number) =>
      until(
        async () => clock.waiting - others,
        (waiting) => waiting === count,
      );
    /** Moves the clock on by `ms`: nothing is due a millisecond before it, something at it. */
    const dueAfter = async (ms: number) => {
      const waiting = clock.waiting;
      await clock.advance(ms - 1);
      expect(clock.waiting).toBe(waiting);
      await clock.advance(1);
      expect(clock.waiting).toBeLessThan(waiting);
    };
    const counts = () => ["flaky", "busy", "broken", "dated"].map((name) => push.to(name).length);

    await prompt(server, session.id, "ask");
    await Promise.all(["gone", "flaky", "busy", "broken", "dated"].map((name) => push.waitFor(name)));
    await until(
      () => subscriptions(server),
      (list) => !list.some((subscription) => subscription.id === gone.subscription.id),
    );
    const failing = await until(
      () => subscriptionNamed(server, "flaky"),
      (found) => found?.lastError !== null,
    );
    expect(failing!.lastError).toContain("500");
    expect(failing!.lastError).toContain("trying again");

    // The retries wait on the server's clock: flaky and broken a second, busy the 30 s of its Retry-After,
    // dated until the moment its Retry-After names (45 s on); broken then 4 s and 16 s more (each counted
    // from the answer before it), and gives up after 4 tries.
    await retriesWaiting(4);
    await dueAfter(1_000);
    await Promise.all([push.waitFor("flaky", 2), push.waitFor("broken", 2)]);
    await retriesWaiting(3);
    expect(counts()).toEqual([2, 1, 2, 1]);
    await dueAfter(4_000);
    await push.waitFor("broken", 3);
    await retriesWaiting(3);
    await dueAfter(16_000);
    await push.waitFor("broken", 4);
    await retriesWaiting(2);
    expect(counts()).toEqual([2, 1, 4, 1]);
    await dueAfter(30_000 - 21_000);
    await push.waitFor("busy", 2);
    await retriesWaiting(1);
    await dueAfter(45_000 - 30_000);
    await push.waitFor("dated", 2);
    // Nothing is left to try again.
    await retriesWaiting(0);
    expect(counts()).toEqual([2, 2, 4, 2]);
    await until(
      () => subscriptions(server),
      (list) => list.find((subscription) => subscription.name === "broken")?.lastError?.includes("gave up after 4 tries") === true,
    );
    const after = await subscriptions(server);
    expect(after.find((subscription) => subscription.id === flaky.subscription.id)).toMatchObject({ lastError: null });
    expect(after.find((subscription) => subscription.id === flaky.subscription.id)!.lastSuccessAt).not.toBeNull();
    for (const name of ["busy", "dated"]) expect(after.find((subscription) => subscription.name === name)!.lastSuccessAt).not.toBeNull();
    // Each request carried the same payload, decryptable by its browser.
    expect(opened(flaky.browser, push.to("flaky")[1]!)).toMatchObject({ kind: "question", sessionId: session.id });
  });

  test("nothing is pushed to a token that watches the session (its event stream is open on it); another token's subscription gets it", async () => {
    t = await startSessionServer({ agents: "in-process" });
    const server = t;
    const asks = (title: string) => [{ permission: { ...PERMISSION.permission, title } }, { chunk: "ok" }];
    server.script({ prompts: { ask: asks("Write hello.txt"), "ask again": asks("Write goodbye.txt") } });
    const session = await server.newSession();
    const other = await server.newSession();
    const phoneToken = namedToken(server, "phone");
    const laptopToken = namedToken(server, "laptop");
    const phone = await subscribe(server, phoneToken, "phone");
    await subscribe(server, laptopToken, "laptop");
    const streamOn = async (sessionId: string) => {
      const stream = new SseClient(`${server.url}/v1/events/stream?sessionId=${sessionId}`, { authorization: `Bearer ${phoneToken}` });
      await stream.ready;
      await stream.waitForComments(1);
      expect(stream.status).toBe(200);
      return stream;
    };
    const askAndAnswer = async (text: string) => {
      await prompt(server, session.id, text);
      const asking = await server.until(session.id, (d) => d.pendingQuestion !== null);
      await server.json("POST", `/v1/sessions/${session.id}/questions/${asking.pendingQuestion!.questionId}/answer`, {
        answers: { permission: { optionIds: ["allow"] } },
      });
      await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    };

    // The phone has the session's page open: it sees the question there.
    const watching = await streamOn(session.id);
    await askAndAnswer("ask");
    await push.waitFor("laptop", 1);
    expect(watching.frames.some((frame) => frame.event === "session.question")).toBe(true);

    // The page closed (the server has let go of its stream), another session's page open: the phone is
    // told again. Its one push is this question's: the first one was never pushed to it.
    watching.close();
    const elsewhere = await streamOn(other.id);
    await until(
      async () => server.server.openStreams,
      (open) => open === 1,
    );
    await askAndAnswer("ask again");
    await push.waitFor("laptop", 2);
    const [told] = await push.waitFor("phone", 1);
    expect(opened(phone.browser, told!)).toMatchObject({ body: "Write goodbye.txt — asks for permission" });
    expect(push.to("phone")).toHaveLength(1);
    elsewhere.close();
  });

  test("a locked database while a push's outcome is recorded is logged, and nothing else is disturbed", async () => {
    t = await startSessionServer({ agents: "in-process" });
    const server = t;
    server.script({ prompts: { ask: [PERMISSION, { chunk: "ok" }] } });
    const session = await server.newSession();
    let release = () => {};
    push.answer("phone", { status: 201, after: new Promise<void>((resolve) => (release = resolve)) });
    await subscribe(server, server.token, "phone");
    await prompt(server, session.id, "ask");
    await push.waitFor("phone");
    // Another process holds the write lock when the push service answers.
    const unlock = lockDatabase(join(server.dataDir, "atrium.db"));
    try {
      release();
      await logSays(server.dataDir, "a push's outcome could not be recorded");
    } finally {
      unlock();
    }
    const asking = await server.until(session.id, (d) => d.pendingQuestion !== null);
    const answered = await server.json("POST", `/v1/sessions/${session.id}/questions/${asking.pendingQuestion!.questionId}/answer`, {
      answers: { permission: { optionIds: ["allow"] } },
    });
    expect(answered.status).toBe(200);
    await server.until(session.id, (d) => lastReply(d)?.stopReason === "end_turn");
    expect((await subscriptionNamed(server, "phone"))?.lastSuccessAt).toBeNull();
  });

  test("shutdown stops the retries: nothing is sent after the server stopped", async () => {
    const clock = new ManualClock();
    t = await startSessionServer({ agents: "in-process", tuning: { clock } });
    const server = t;
    server.script({ prompts: { ask: [PERMISSION] } });
    const session = await server.newSession();
    push.answer("down", { status: 503 }, { status: 503 });
    await subscribe(server, server.token, "down");
    await prompt(server, session.id, "ask");
    await push.waitFor("down");
    await until(
      () => subscriptionNamed(server, "down"),
      (found) => found?.lastError !== null,
    );
    expect(clock.waiting).toBeGreaterThan(0);
    const stopping = performance.now();
    await server.cleanup();
    t = undefined;
    expect(performance.now() - stopping).toBeLessThan(5_000);
    // Its retry is no longer on the clock (nor is anything else of the server's): nothing is left to send it.
    expect(clock.waiting).toBe(0);
    await clock.advance(60_000);
    expect(push.to("down")).toHaveLength(1);
  });
});

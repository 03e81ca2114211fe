import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientSummary, ClientWindowState } from "../../src/schemas/clients.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { until } from "../helpers/poll.ts";
import { desktopState, ReferenceClient } from "../helpers/reference-client.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { SseClient } from "../helpers/sse-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// A phone steering a desktop client: the reference client (test/helpers/reference-client.ts) plays the
// desktop over real event streams and real requests; the test plays the phone.

let t: TestServer;
const clients: ReferenceClient[] = [];

beforeAll(async () => {
  t = await startTestServer({ tuning: { modules: { clients: { answerTimeoutMs: 1_000 } } } });
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await t.stop();
});

async function desktop(clientId: string, answering: ReferenceClient["answering"] = "answer"): Promise<ReferenceClient> {
  const client = new ReferenceClient(t, clientId, answering);
  clients.push(client);
  await client.connect();
  return client;
}

type Summary = { clients: ClientSummary[] };
const summary = async (clientId: string) => (await t.json<Summary>("GET", "/v1/clients")).body.clients.find((each) => each.clientId === clientId);

async function expectError(answer: Promise<{ status: number; body: unknown }>, status: number, words: string): Promise<void> {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  assertMatchesSchema(ErrorBody, body);
  expect((body as { error: string }).error).toContain(words);
}

describe("presence and state", () => {
  test("a client's state is stored and listed; it is connected while its stream is open, and its state stays after it goes", async () => {
    const client = await desktop("desk-presence");
    const listed = await t.json<Summary>("GET", "/v1/clients");
    expect(listed.status).toBe(200);
    for (const each of listed.body.clients) assertMatchesSchema(ClientSummary, each);
    expect(await summary("desk-presence")).toMatchObject({ connected: true, state: desktopState() });
    client.disconnect();
    const gone = await until(
      () => summary("desk-presence"),
      (found) => found?.connected === false,
    );
    const window = await t.json<ClientWindowState>("GET", "/v1/clients/desk-presence/window");
    expect(window.status).toBe(200);
    assertMatchesSchema(ClientWindowState, window.body);
    expect(window.body).toEqual(desktopState());
    expect(Date.parse(gone!.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(gone!.updatedAt));
  });

  test("another client follows the layout live through client.updated events", async () => {
    const phone = new SseClient(`${t.url}/v1/events/stream?kind=client.updated`, { authorization: `Bearer ${t.token}` });
    await phone.ready;
    await phone.waitForComments(1);
    const client = await desktop("desk-follow");
    client.state = { ...client.state, workspaceId: "ws_2" };
    await client.report();
    const frame = await phone.waitFor((candidate) => candidate.data.includes('"workspaceId":"ws_2"'));
    expect(JSON.parse(frame.data).payload.client.clientId).toBe("desk-follow");
    phone.close();
    client.disconnect();
  });

  test("a state that breaks the shape is 400 naming the field, and nothing changes", async () => {
    await desktop("desk-shape");
    const bad = { ...desktopState(), window: { ...desktopState().window, width: "wide" } };
    const answer = await t.json<{ error: string }>("PUT", "/v1/clients/desk-shape/window-state", bad);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toContain("window.width");
    expect((await t.json<ClientWindowState>("GET", "/v1/clients/desk-shape/window")).body).toEqual(desktopState());
    await expectError(t.json("GET", "/v1/clients/nobody/window"), 404, "no client nobody");
    await expectError(t.json("PUT", "/v1/clients/bad id/window-state", desktopState()), 400, "clientId");
  });
});

describe("endpoint 5 and the other actions", () => {
  test("minimize and focus reach that client only; the answer is the state it reports back", async () => {
    const client = await desktop("desk-actions");
    const bystander = await desktop("desk-bystander");
    const minimized = await t.json<ClientWindowState>("POST", "/v1/clients/desk-actions/window", { action: "minimize" });
    expect(minimized.status).toBe(200);
    assertMatchesSchema(ClientWindowState, minimized.body);
    expect(minimized.body.window.isMinimized).toBe(true);
    const focused = await t.json<ClientWindowState>("POST", "/v1/clients/desk-actions/window", { action: "focus" });
    expect(focused.body).toMatchObject({ isActive: true, window: { isMinimized: false } });
    expect(client.actions.map((action) => action.action)).toEqual(["minimize", "focus"]);
    expect(bystander.actions).toEqual([]);
    expect((await t.json<ClientWindowState>("GET", "/v1/clients/desk-actions/window")).body.isActive).toBe(true);
  });

  test("navigate and layout, each checked against the client's capabilities", async () => {
    await desktop("desk-navigate");
    const settings = await t.json<ClientWindowState>("POST", "/v1/clients/desk-navigate/navigate", { page: "settings", settingsSection: "harnesses" });
    expect(settings.body.page).toMatchObject({ page: "settings", settingsSection: "harnesses" });
    const opened = await t.json<ClientWindowState>("POST", "/v1/clients/desk-navigate/layout", { action: "openSession", sessionId: "ses_2" });
    expect(opened.body.workspaces[0]!.tabs[0]!.panes.map((pane) => pane.sessionId)).toEqual(["ses_1", "ses_2"]);
    await expectError(
      t.json("POST", "/v1/clients/desk-navigate/navigate", { page: "billing" }),
      400,
      "cannot show page billing (its capabilities offer sessions, settings)",
    );
    await expectError(t.json("POST", "/v1/clients/desk-navigate/navigate", { page: "settings", settingsSection: "secrets" }), 400, "settings section secrets");
    await expectError(t.json("POST", "/v1/clients/desk-navigate/layout", { action: "closeAll" }), 400, "layout action closeAll");
  });

  test("an action outside the enum or the client's windowActions is 400; unknown 404; not connected 409", async () => {
    const limited = new ReferenceClient(
      t,
      "desk-limited",
      "answer",
      desktopState({ capabilities: { ...desktopState().capabilities, windowActions: ["focus"] } }),
    );
    clients.push(limited);
    await limited.connect();
    await expectError(t.json("POST", "/v1/clients/desk-limited/window", { action: "maximize" }), 400, "action");
    await expectError(t.json("POST", "/v1/clients/desk-limited/window", { action: "minimize" }), 400, "cannot minimize (its capabilities offer focus)");
    await expectError(t.json("POST", "/v1/clients/nobody/window", { action: "focus" }), 404, "no client nobody");
    limited.disconnect();
    await until(
      () => summary("desk-limited"),
      (found) => found?.connected === false,
    );
    await expectError(t.json("POST", "/v1/clients/desk-limited/window", { action: "focus" }), 409, "is not connected");
    expect(limited.actions).toEqual([]);
  });

  test("no answer within the time is 504; a client that drops its stream mid-action is 409 at once", async () => {
    const silent = await desktop("desk-silent", "ignore");
    await expectError(t.json("POST", "/v1/clients/desk-silent/window", { action: "focus" }), 504, "did not answer within 1 s");
    expect(silent.actions).toHaveLength(1);
    // A late answer to an action that timed out is stored as state, and answers nothing.
    expect((await silent.report(silent.actions[0]!.actionId)).status).toBe(200);

    await desktop("desk-dropping", "disconnect");
    const started = performance.now();
    await expectError(t.json("POST", "/v1/clients/desk-dropping/window", { action: "focus" }), 409, "went away before it answered");
    expect(performance.now() - started).toBeLessThan(900);
  });
});

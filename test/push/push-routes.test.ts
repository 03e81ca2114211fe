import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { AccessTokens } from "../../src/auth/access-tokens.ts";
import { withStore } from "../../src/cli/cli-context.ts";
import { dataPaths } from "../../src/config/paths.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { PushSubscription, PushSubscriptionList, PushVapidKey } from "../../src/schemas/push.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { PushBrowser } from "../helpers/push-service.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

/** A named token, made as `atrium token create` makes it: in the database, from another connection. */
function namedToken(name: string): string {
  return withStore(dataPaths(t.dataDir), (store) => new AccessTokens("unused", new TokenRepository(store)).create(name).token);
}

function revoke(name: string): void {
  withStore(dataPaths(t.dataDir), (store) => new AccessTokens("unused", new TokenRepository(store)).revoke(name));
}

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(t.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

const list = async (token: string) => {
  const listed = await call<PushSubscriptionList>(token, "GET", "/v1/push/subscriptions");
  expect(listed.status).toBe(200);
  assertMatchesSchema(PushSubscriptionList, listed.body);
  return listed.body.subscriptions;
};

describe("push routes", () => {
  test("the VAPID key is made on first use, kept 0600 in the data dir, and stays the same", async () => {
    const first = await call<{ publicKey: string }>(t.token, "GET", "/v1/push/vapid-key");
    expect(first.status).toBe(200);
    assertMatchesSchema(PushVapidKey, first.body);
    const point = Buffer.from(first.body.publicKey, "base64url");
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(4);
    expect(first.body.publicKey).toMatch(/^[A-Za-z0-9_-]+$/);
    const file = join(t.dataDir, "vapid-keys.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(file, "utf8")) as { publicKey: string }).publicKey).toBe(first.body.publicKey);
    expect((await call<{ publicKey: string }>(t.token, "GET", "/v1/push/vapid-key")).body.publicKey).toBe(first.body.publicKey);
  });

  test("subscribe, subscribe the same endpoint again, change, list and unsubscribe; the keys are never returned", async () => {
    const browser = new PushBrowser();
    const endpoint = "https://push.example.net/wpush/v2/abc";
    const created = await call<PushSubscription>(t.token, "POST", "/v1/push/subscriptions", { subscription: browser.subscription(endpoint), name: "Pixel" });
    expect(created.status).toBe(201);
    assertMatchesSchema(PushSubscription, created.body);
    expect(created.body).toMatchObject({
      endpointOrigin: "https://push.example.net",
      name: "Pixel",
      tokenName: "admin",
      events: ["question", "plan", "turn", "failed"],
      lastSuccessAt: null,
      lastError: null,
    });
    expect(created.body.id).toMatch(/^psub_/);
    expect(JSON.stringify(created.body)).not.toContain(browser.subscription(endpoint).keys.p256dh);
    expect(JSON.stringify(created.body)).not.toContain("/wpush/");

    // The browser subscribed anew (new keys): the same record, replaced.
    const again = await call<PushSubscription>(t.token, "POST", "/v1/push/subscriptions", {
      subscription: new PushBrowser().subscription(endpoint),
      events: ["plan", "question"],
    });
    expect(again.status).toBe(200);
    assertMatchesSchema(PushSubscription, again.body);
    expect(again.body).toMatchObject({ id: created.body.id, createdAt: created.body.createdAt, name: null, events: ["question", "plan"] });

    const changed = await call<PushSubscription>(t.token, "PATCH", `/v1/push/subscriptions/${created.body.id}`, { name: "Phone", events: ["failed"] });
    expect(changed.status).toBe(200);
    assertMatchesSchema(PushSubscription, changed.body);
    expect(changed.body).toMatchObject({ id: created.body.id, name: "Phone", events: ["failed"] });
    expect((await list(t.token)).map((subscription) => subscription.id)).toEqual([created.body.id]);

    const deleted = await call(t.token, "DELETE", `/v1/push/subscriptions/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect(await list(t.token)).toEqual([]);
    const gone = await call(t.token, "DELETE", `/v1/push/subscriptions/${created.body.id}`);
    expect(gone.status).toBe(404);
    assertMatchesSchema(ErrorBody, gone.body);
  });

  test("bad subscriptions are 400 naming the field, and nothing is stored", async () => {
    const browser = new PushBrowser();
    const good = browser.subscription("https://push.example.net/x");
    const offCurve = Buffer.from(browser.publicKey);
    offCurve[64]! ^= 1;
    const cases: Array<[unknown, string]> = [
      [{}, "subscription"],
      [{ subscription: { ...good, endpoint: "http://push.example.net/x" } }, "subscription.endpoint"],
      [{ subscription: { ...good, endpoint: "/push/x" } }, "subscription.endpoint"],
      [{ subscription: { ...good, endpoint: "ftp://push.example.net/x" } }, "subscription.endpoint"],
      [{ subscription: { ...good, endpoint: "https://user:pw@push.example.net/x" } }, "subscription.endpoint"],
      [{ subscription: { ...good, keys: { ...good.keys, p256dh: Buffer.alloc(33, 2).toString("base64url") } } }, "subscription.keys.p256dh"],
      [{ subscription: { ...good, keys: { ...good.keys, p256dh: offCurve.toString("base64url") } } }, "subscription.keys.p256dh"],
      [{ subscription: { ...good, keys: { ...good.keys, p256dh: "not base64!" } } }, "subscription.keys.p256dh"],
      [{ subscription: { ...good, keys: { ...good.keys, auth: Buffer.alloc(12).toString("base64url") } } }, "subscription.keys.auth"],
      [{ subscription: { endpoint: good.endpoint } }, "subscription.keys"],
      [{ subscription: good, events: ["question", "everything"] }, "events"],
      [{ subscription: good, events: ["plan", "plan"] }, "events"],
      [{ subscription: good, name: "" }, "name"],
    ];
    for (const [body, field] of cases) {
      const refused = await call<{ error: string }>(t.token, "POST", "/v1/push/subscriptions", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      assertMatchesSchema(ErrorBody, refused.body);
      expect(refused.body.error).toContain(`"${field}`);
    }
    expect(await list(t.token)).toEqual([]);

    // http is for a push service on this machine only.
    const local = await call<PushSubscription>(t.token, "POST", "/v1/push/subscriptions", { subscription: browser.subscription("http://127.0.0.1:9/push/x") });
    expect(local.status).toBe(201);
    expect(local.body.endpointOrigin).toBe("http://127.0.0.1:9");
    expect((await call(t.token, "PATCH", `/v1/push/subscriptions/${local.body.id}`, { events: ["sometimes"] })).status).toBe(400);
    expect((await call(t.token, "DELETE", `/v1/push/subscriptions/${local.body.id}`)).status).toBe(204);
  });

  test("a named token sees and changes only its own; the admin token sees all; revoking a token drops its subscriptions", async () => {
    const phone = namedToken("phone");
    const tablet = namedToken("tablet");
    const subscribe = async (token: string, name: string) => {
      const created = await call<PushSubscription>(token, "POST", "/v1/push/subscriptions", {
        subscription: new PushBrowser().subscription(`https://push.example.net/${name}`),
        name,
      });
      expect(created.status).toBe(201);
      return created.body;
    };
    const phoneSubscription = await subscribe(phone, "phone");
    const tabletSubscription = await subscribe(tablet, "tablet");
    expect(phoneSubscription.tokenName).toBe("phone");

    expect((await list(phone)).map((subscription) => subscription.id)).toEqual([phoneSubscription.id]);
    expect((await list(tablet)).map((subscription) => subscription.id)).toEqual([tabletSubscription.id]);
    expect((await list(t.token)).map((subscription) => subscription.id).sort()).toEqual([phoneSubscription.id, tabletSubscription.id].sort());

    for (const [method, body] of [
      ["PATCH", { name: "mine now" }],
      ["DELETE", undefined],
    ] as const) {
      const refused = await call<{ error: string }>(tablet, method, `/v1/push/subscriptions/${phoneSubscription.id}`, body);
      expect(refused.status).toBe(404);
      assertMatchesSchema(ErrorBody, refused.body);
    }
    expect((await list(phone))[0]).toMatchObject({ name: "phone" });

    // As `atrium token revoke` does it: the row is deleted from another connection, and its subscriptions with it.
    revoke("phone");
    expect((await list(t.token)).map((subscription) => subscription.id)).toEqual([tabletSubscription.id]);
    expect((await call(phone, "GET", "/v1/push/subscriptions")).status).toBe(401);

    // The admin token may remove anyone's.
    expect((await call(t.token, "DELETE", `/v1/push/subscriptions/${tabletSubscription.id}`)).status).toBe(204);
    revoke("tablet");
  });

  test("the OpenAPI document lists the routes and the schemas; info lists the feature", async () => {
    const document = (await (await t.api("/v1/openapi.json")).json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    for (const path of ["/v1/push/vapid-key", "/v1/push/subscriptions", "/v1/push/subscriptions/{id}"]) expect(document.paths[path]).toBeDefined();
    for (const schema of ["PushSubscription", "PushSubscriptionList", "PushVapidKey", "PushEventKind"])
      expect(document.components.schemas[schema]).toBeDefined();
    const info = (await (await t.api("/v1/info")).json()) as { features: string[] };
    expect(info.features).toContain("push.webpush");
  });
});

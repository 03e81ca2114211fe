import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { MAX_FREE_FORM_DEPTH } from "../../src/http/free-form-depth.ts";

let t: TestServer;
let startCursor = 0;
beforeAll(async () => {
  t = await startTestServer();
  startCursor = await t.ready();
});
afterAll(() => t.stop());

const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const entryText = (key: string, valueText: string, wallMs = 1) =>
  `{"key":"${key}","value":${valueText},"timestamp":{"wallMs":${wallMs},"counter":0,"deviceId":"d1"}}`;

async function putText(namespace: string, body: string) {
  const response = await t.api(`/v1/sync/${namespace}`, { method: "PUT", body, headers: { "content-type": "application/json" } });
  return { status: response.status, body: (await response.json()) as { error?: string; entries?: Array<{ key: string }> } };
}

describe("free-form JSON fields are bounded in depth", () => {
  test(`a sync value nested deeper than ${MAX_FREE_FORM_DEPTH} levels is 400 naming the field, and nothing is stored`, async () => {
    for (const depth of [MAX_FREE_FORM_DEPTH + 1, 40_000]) {
      const refused = await putText("deep", `{"entries":[${entryText("ok", "1")},${entryText("deep", nestedArrays(depth))}]}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(`body field "entries[1].value" nests arrays and objects more than ${MAX_FREE_FORM_DEPTH} levels deep`);
    }
    // Neither entry of the refused PUTs was written, and no event was appended.
    expect((await t.json<{ entries: unknown[] }>("GET", "/v1/sync/deep")).body.entries).toEqual([]);
    expect((await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor).toBe(startCursor);
    // The namespace still works both ways.
    const put = await putText("deep", `{"entries":[${entryText("ok", "1", 2)}]}`);
    expect(put.status).toBe(200);
    const get = await t.json<{ entries: Array<{ key: string; value: unknown }> }>("GET", "/v1/sync/deep");
    expect(get.status).toBe(200);
    expect(get.body.entries.map((entry) => [entry.key, entry.value])).toEqual([["ok", 1]]);
  });

  test(`a value exactly ${MAX_FREE_FORM_DEPTH} levels deep is kept and read back`, async () => {
    const put = await putText("limit", `{"entries":[${entryText("k", nestedObjects(MAX_FREE_FORM_DEPTH))}]}`);
    expect(put.status).toBe(200);
    const get = await t.json<{ entries: Array<{ value: unknown }> }>("GET", "/v1/sync/limit");
    expect(JSON.stringify(get.body.entries[0]!.value)).toBe(nestedObjects(MAX_FREE_FORM_DEPTH));
  });

  test("a body nested hundreds of thousands deep (under the 1 MiB limit) is a 400, never a 500", async () => {
    const asValue = await putText("huge", `{"entries":[${entryText("k", nestedArrays(500_000))}]}`);
    expect(asValue.status).toBe(400);
    expect(asValue.body.error).toContain('"entries[0].value"');
    const asObjects = await putText("huge", `{"entries":[${entryText("k", nestedObjects(150_000))}]}`);
    expect(asObjects.status).toBe(400);
    const asEntries = await putText("huge", `{"entries":${nestedArrays(500_000)}}`);
    expect(asEntries.status).toBe(400);
    expect(asEntries.body.error).toContain('"entries[0]"');
    // A property no schema knows is dropped unread, however deep.
    const asUnknownProperty = await putText("huge", `{"entries":[],"extra":${nestedArrays(500_000)}}`);
    expect(asUnknownProperty.status).toBe(200);
    expect((await t.json<{ entries: unknown[] }>("GET", "/v1/sync/huge")).body.entries).toEqual([]);
  });
});

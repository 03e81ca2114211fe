import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { until } from "../helpers/poll.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";

let t: TestServer;
let startCursor = 0;
beforeAll(async () => {
  t = await startTestServer();
  startCursor = await t.ready();
});
afterAll(() => t.stop());

const entry = (key: string, value: unknown, wallMs = 1) => ({ key, value, timestamp: { wallMs, counter: 0, deviceId: "d1" } });

async function put(body: RequestInit["body"], headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await t.api("/v1/sync/errors", { method: "PUT", body, headers });
  const json = (await response.json()) as { error: string };
  return { status: response.status, json };
}

/** Nothing may be written by a refused request: no entry, no event. */
async function expectNothingWritten(): Promise<void> {
  const namespace = await t.json<{ entries: unknown[] }>("GET", "/v1/sync/errors");
  expect(namespace.body.entries).toEqual([]);
  expect((await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor).toBe(startCursor);
}

describe("error responses", () => {
  test("malformed JSON is 400 and says so", async () => {
    const { status, json } = await put('{"entries": [');
    expect(status).toBe(400);
    assertMatchesSchema(ErrorBody, json);
    expect(json.error).toContain("not valid JSON");
    await expectNothingWritten();
  });

  test("a wrong type is 400 naming the field", async () => {
    const { status, json } = await put(JSON.stringify({ entries: [{ ...entry("a", 1), timestamp: { wallMs: "soon", counter: 0, deviceId: "d" } }] }));
    expect(status).toBe(400);
    expect(json.error).toContain("entries[0].timestamp.wallMs");
    await expectNothingWritten();
  });

  test("a missing required field is 400 naming the field", async () => {
    const { status, json } = await put(JSON.stringify({ entries: [{ key: "a", value: 1 }] }));
    expect(status).toBe(400);
    expect(json.error).toContain("entries[0].timestamp");
    expect(json.error).toContain("required");
    const missingTop = await put(JSON.stringify({}));
    expect(missingTop.status).toBe(400);
    expect(missingTop.json.error).toContain('"entries" is required');
    await expectNothingWritten();
  });

  test("a body that is not an object is 400", async () => {
    const { status, json } = await put("[1,2]");
    expect(status).toBe(400);
    assertMatchesSchema(ErrorBody, json);
    await expectNothingWritten();
  });

  test("a missing body on a route that needs one is 400", async () => {
    const { status, json } = await put(null);
    expect(status).toBe(400);
    expect(json.error).toContain("body is required");
    await expectNothingWritten();
  });

  test("a body without a JSON content type is 400 saying which header to send", async () => {
    const variants: Record<string, string>[] = [{}, { "content-type": "text/plain" }, { "content-type": "application/x-www-form-urlencoded" }];
    for (const headers of variants) {
      const { status, json } = await put(JSON.stringify({ entries: [entry("a", 1)] }), headers);
      expect(status).toBe(400);
      expect(json.error).toContain("Content-Type: application/json");
    }
    await expectNothingWritten();
  });

  test("a sync key with a lone surrogate is 400 naming it", async () => {
    const { status, json } = await put(JSON.stringify({ entries: [entry("\uDBFF", 1)] }));
    expect(status).toBe(400);
    expect(json.error).toContain('"entries[0].key"');
    await expectNothingWritten();
  });

  test("a body over 1 MiB is 413, whether its length is declared or chunked", async () => {
    const big = JSON.stringify({ entries: [entry("big", "x".repeat(1024 * 1024 + 10))] });
    const declared = await put(big);
    expect(declared.status).toBe(413);
    assertMatchesSchema(ErrorBody, declared.json);
    const encoder = new TextEncoder();
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < big.length; offset += 64 * 1024) controller.enqueue(encoder.encode(big.slice(offset, offset + 64 * 1024)));
        controller.close();
      },
    });
    const streamed = await put(chunked);
    expect(streamed.status).toBe(413);
    expect(streamed.json.error).toContain("larger than");
    await expectNothingWritten();
  });

  test("a body just under the limit is accepted", async () => {
    const value = "x".repeat(1024 * 1024 - 200);
    const { status } = await put(JSON.stringify({ entries: [entry("near-limit", value)] }));
    expect(status).toBe(200);
  });

  test("an invalid path parameter is 400 naming it", async () => {
    const response = await t.api("/v1/sync/bad%20name");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain('"namespace"');
  });

  test("an invalid query parameter is 400 naming it", async () => {
    for (const after of ["-1", "abc", "1.5"]) {
      const response = await t.api(`/v1/events/stream?after=${after}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain('"after"');
    }
  });

  test("an unknown route is 404 with an {error} body", async () => {
    for (const [method, path] of [
      ["GET", "/v1/nothing"],
      ["POST", "/v1/health"],
      ["DELETE", "/v1/sync/x"],
      ["GET", "/no-such-file.js"],
    ] as const) {
      const response = await t.api(path, { method });
      expect(response.status).toBe(404);
      assertMatchesSchema(ErrorBody, await response.json());
    }
  });
});

describe("unexpected failures", () => {
  test("are 500 with a generic message; the detail goes to the log, not the client", async () => {
    const broken = await startTestServer();
    // A real fault in the real store: another connection drops a table the route needs.
    const other = new Database(join(broken.dataDir, "atrium.db"));
    other.run("DROP TABLE sync_entries");
    other.close();
    const response = await broken.api("/v1/sync/x");
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: string };
    assertMatchesSchema(ErrorBody, body);
    expect(body.error).toBe("the server failed to complete the request; the details are in its log");
    expect(JSON.stringify(body)).not.toContain("sync_entries");
    const log = readFileSync(broken.server.paths.logFile, "utf8");
    expect(log).toContain("unexpected error while serving a request");
    expect(log).toContain("no such table: sync_entries");
    await broken.stop();
  });
});

test("a body declared far over every limit still gets an {error} 413, before it is sent", async () => {
  let received = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: t.server.port,
    socket: {
      data(_socket, data) {
        received += new TextDecoder().decode(data);
      },
    },
  });
  socket.write(
    `PUT /v1/sync/x HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{",
  );
  await until(
    async () => received,
    (text) => text.includes("}"),
    5000,
  );
  expect(received).toStartWith("HTTP/1.1 413");
  expect(received).toContain('{"error":"the request body is larger than the 1024 KiB this route accepts"}');
  // The rest is never read: the server closes the connection, so the request does not stay open (a
  // server stopping waited its whole grace period for it).
  expect(received.toLowerCase()).toContain("connection: close");
  await until(
    async () => socket.readyState,
    (state) => state !== 1,
    5000,
  );
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { brotliDecompressSync } from "node:zlib";
import { Type, type TSchema } from "@sinclair/typebox";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { until } from "../helpers/poll.ts";
import { ErrorBody } from "../../src/schemas/common.ts";
import { SessionDetail, SessionListItem } from "../../src/schemas/sessions.ts";
import { pagesOf } from "../helpers/pages.ts";
import { ProjectList } from "../../src/schemas/projects.ts";

let t: TestServer;
const projects: string[] = [];
const sessions: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  await t.ready();
  for (let index = 0; index < 5; index++) {
    projects.push((await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true })).body.id);
  }
  for (let index = 0; index < 7; index++) {
    const projectId = projects[index % 2]!;
    sessions.push((await t.json<{ id: string }>("POST", "/v1/sessions", { projectId, harnessId: "echo", title: `s${index}` })).body.id);
  }
});

afterAll(() => t.stop());

/** Each page's ids, from `path` to the last page. */
const allPages = async (path: string, schema: TSchema): Promise<string[][]> =>
  (await pagesOf<{ id: string }>(t, path, schema)).map((page) => page.map((item) => item.id));

test("sessions are paged newest first: each page at most `limit`, the Link header leads to the next, every session once", async () => {
  const pages = await allPages("/v1/sessions?limit=3", Type.Array(SessionListItem));
  expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
  // The order of one page of all: updatedAt descending (ties, made within a millisecond, by id).
  const whole = (await t.json<Array<{ id: string; updatedAt: string }>>("GET", "/v1/sessions?limit=200")).body;
  expect(whole.map((session) => session.updatedAt)).toEqual(
    whole
      .map((session) => session.updatedAt)
      .sort()
      .reverse(),
  );
  expect(pages.flat()).toEqual(whole.map((session) => session.id));
  expect([...pages.flat()].sort()).toEqual([...sessions].sort());
  // A list leaves out what is read with the session: its MCP servers.
  expect(whole.every((session) => !("mcpServers" in session))).toBe(true);
  expect((await t.json<Record<string, unknown>>("GET", `/v1/sessions/${sessions[0]}`)).body.session).toHaveProperty("mcpServers");
  // Filters carry over to the next pages.
  const filtered = await allPages(`/v1/sessions?limit=2&projectId=${projects[0]}`, Type.Array(SessionListItem));
  const inFirstProject = sessions.filter((_, index) => index % 2 === 0);
  expect(filtered.flat()).toEqual(whole.map((session) => session.id).filter((id) => inFirstProject.includes(id)));
  // Without a limit, 50; the last page has no Link header.
  const first = await t.api("/v1/sessions");
  expect(first.headers.get("link")).toBeNull();
  expect(((await first.json()) as unknown[]).length).toBe(7);
});

test("projects are paged oldest first, each with its locations", async () => {
  const pages = await allPages("/v1/projects?limit=2", ProjectList);
  expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
  // createdAt ascending (ties, made within a millisecond, by id): the order of one page of all.
  const whole = (await t.json<Array<{ id: string; createdAt: string }>>("GET", "/v1/projects?limit=200")).body;
  expect(whole.map((project) => project.createdAt)).toEqual(whole.map((project) => project.createdAt).sort());
  expect(pages.flat()).toEqual(whole.map((project) => project.id));
  expect([...pages.flat()].sort()).toEqual([...projects].sort());
  const page = (await t.json<Array<{ locations: unknown[] }>>("GET", "/v1/projects?limit=1")).body;
  expect(page[0]!.locations).toHaveLength(1);
});

test("each page says the event cursor it was read at: a change after it is an event after it", async () => {
  const cursorNow = async () => (await t.json<{ cursor: number }>("GET", "/v1/events/cursor")).body.cursor;
  for (const path of ["/v1/sessions?limit=2", "/v1/projects?limit=2"]) {
    const before = await t.api(path);
    expect(Number(before.headers.get("atrium-event-cursor"))).toBe(await cursorNow());
  }
  const page = await t.api("/v1/sessions?limit=2");
  const readAt = Number(page.headers.get("atrium-event-cursor"));
  const made = (await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: projects[4], harnessId: "echo", title: "after the page" })).body;
  const events = (await t.json<Array<{ kind: string; globalEventId: number }>>("GET", `/v1/sessions/${made.id}/events`)).body;
  expect(events.find((event) => event.kind === "session.created")!.globalEventId).toBeGreaterThan(readAt);
  // The same page again is read at the newer cursor, and holds the change.
  const again = await t.api("/v1/sessions?limit=2");
  expect(Number(again.headers.get("atrium-event-cursor"))).toBe(await cursorNow());
  expect(((await again.json()) as Array<{ id: string }>)[0]!.id).toBe(made.id);
  await t.json("DELETE", `/v1/sessions/${made.id}`);
  type Document = { paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }> };
  const document = (await t.json<Document>("GET", "/v1/openapi.json")).body;
  for (const path of ["/v1/sessions", "/v1/projects"]) {
    expect(Object.keys(document.paths[path]!.get.responses["200"]!.headers ?? {})).toEqual(["Link", "Atrium-Event-Cursor"]);
  }
});

test("a bad limit or a cursor this server did not give out is 400, naming it", async () => {
  for (const path of ["/v1/sessions?limit=0", "/v1/sessions?limit=201", "/v1/projects?limit=x", "/v1/sessions?cursor=nope", "/v1/projects?cursor=WyJhIl0"]) {
    const { status, body } = await t.json<{ error: string }>("GET", path);
    expect(status, path).toBe(400);
    assertMatchesSchema(ErrorBody, body);
    expect(body.error).toMatch(/limit|cursor/);
  }
});

test("a list page goes compressed as the client asks (zstd, else gzip, else brotli), the same JSON inside; a page under 1 KiB as it is", async () => {
  const path = "/v1/sessions?limit=200";
  const fetchAs = (acceptEncoding: string, query = path) =>
    fetch(t.url + query, { headers: { authorization: `Bearer ${t.token}`, "accept-encoding": acceptEncoding }, decompress: false } as RequestInit);
  const plain = await fetchAs("identity");
  const json = await plain.text();
  expect(plain.headers.get("content-encoding")).toBeNull();
  expect(json.length).toBeGreaterThan(1024);
  const br = await fetchAs("br");
  expect(br.headers.get("content-encoding")).toBe("br");
  expect(br.headers.get("vary")).toBe("accept-encoding");
  expect(brotliDecompressSync(new Uint8Array(await br.arrayBuffer())).toString("utf8")).toBe(json);
  const gz = await fetchAs("gzip, deflate, br");
  expect(gz.headers.get("content-encoding")).toBe("gzip");
  expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(json);
  const zstd = await fetchAs("gzip, deflate, br, zstd");
  expect(zstd.headers.get("content-encoding")).toBe("zstd");
  expect(new TextDecoder().decode(Bun.zstdDecompressSync(new Uint8Array(await zstd.arrayBuffer())))).toBe(json);
  const one = await fetchAs("br", "/v1/sessions?limit=1");
  expect(one.headers.get("content-encoding")).toBeNull();
  expect(((await one.json()) as unknown[]).length).toBe(1);
});

test("a session's detail, a large answer, goes compressed too; the same JSON inside", async () => {
  const id = sessions[0]!;
  await t.json("POST", `/v1/sessions/${id}/prompts`, { text: "long ".repeat(400) });
  type Detail = { conversation: Array<{ isGenerating: boolean }>; promptQueue: unknown[] };
  await until(
    async () => (await t.json<Detail>("GET", `/v1/sessions/${id}`)).body,
    (detail) => detail.conversation.length === 2 && !detail.conversation[1]!.isGenerating && detail.promptQueue.length === 0,
  );
  const fetchAs = (acceptEncoding: string) =>
    fetch(`${t.url}/v1/sessions/${id}`, {
      headers: { authorization: `Bearer ${t.token}`, "accept-encoding": acceptEncoding },
      decompress: false,
    } as RequestInit);
  const plain = await fetchAs("identity");
  expect(plain.headers.get("content-encoding")).toBeNull();
  expect(plain.headers.get("content-type")).toContain("application/json");
  const json = await plain.text();
  expect(json.length).toBeGreaterThan(1024);
  const gz = await fetchAs("gzip, br");
  expect(gz.headers.get("content-encoding")).toBe("gzip");
  const inflated = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer()))));
  expect(inflated).toEqual(JSON.parse(json));
  assertMatchesSchema(SessionDetail, inflated);
  // Refused (a wrong id) is still the {error} it was.
  const missing = await fetch(`${t.url}/v1/sessions/ses_nope`, { headers: { authorization: `Bearer ${t.token}`, "accept-encoding": "gzip" } });
  expect(missing.status).toBe(404);
  assertMatchesSchema(ErrorBody, await missing.json());
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COMPRESS_FROM_BYTES } from "../../src/system/compression.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

interface Operation {
  parameters: Array<{ name: string; in: "path" | "query"; required: boolean }>;
}

let t: TestServer;
let getRoutes: Array<{ path: string; operation: Operation }>;
/** Real ids where a route takes one, so that most answers are 200s with bodies; the rest answer 404 (as GET does). */
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestServer();
  await t.ready();
  // Lists past 1 KiB: projects with long names, sessions on them.
  for (let index = 0; index < 4; index++) {
    const project = await t.json<{ id: string; locations: Array<{ id: string }> }>("POST", "/v1/projects", {
      isScratch: true,
      name: `project ${index} ${"n".repeat(150)}`,
    });
    ids.project = project.body.id;
    ids.location = project.body.locations[0]!.id;
    const session = await t.json<{ id: string }>("POST", "/v1/sessions", { projectId: project.body.id, harnessId: "echo", title: "t".repeat(150) });
    expect(session.status).toBe(201);
    ids.session = session.body.id;
  }
  const document = (await (await t.api("/v1/openapi.json")).json()) as { paths: Record<string, { get?: Operation }> };
  getRoutes = Object.entries(document.paths).flatMap(([path, methods]) => (methods.get ? [{ path, operation: methods.get }] : []));
});
afterAll(() => t.stop());

const PATH_VALUES: Record<string, () => string> = {
  "/v1/projects/{id}": () => ids.project!,
  "/v1/sessions/{id}": () => ids.session!,
  "/v1/harnesses/{id}": () => "echo",
  "/v1/sync/{namespace}": () => "settings",
};

/** A GET route's URL: the seeded ids where the path starts like a route above, else a placeholder; required query parameters given. */
function urlOf(path: string, operation: Operation): string {
  const filled = path.replace(/\{([^}]+)\}/g, (placeholder, name: string, offset: number) => {
    const prefix = path.slice(0, offset) + placeholder;
    if (name === "locationId") return ids.location!;
    return PATH_VALUES[prefix]?.() ?? "x";
  });
  const query = operation.parameters.filter((parameter) => parameter.in === "query" && parameter.required).map((parameter) => `${parameter.name}=0`);
  return query.length > 0 ? `${filled}?${query.join("&")}` : filled;
}

/** Headers as they were sent, without `Date` (Bun does not send one with a HEAD answer). */
function headersOf(response: Response): Record<string, string> {
  const { date: _sent, ...rest } = Object.fromEntries(response.headers);
  return rest;
}

function ask(url: string, method: "GET" | "HEAD", headers: Record<string, string>): Promise<Response> {
  return fetch(t.url + url, { method, headers, decompress: false });
}

/** A GET's headers only, its body dropped: an event stream never ends. */
async function headersOnly(url: string, headers: Record<string, string>): Promise<Response> {
  const get = await ask(url, "GET", headers);
  await get.body?.cancel();
  return get;
}

/**
 * A HEAD and a GET next to it that it answers like, tried a few times: some bodies change from one
 * request to the next (health's uptime is a float, one or three decimals long), so a HEAD is held to
 * the GET just before or just after it. A HEAD that matches neither, five times over, fails.
 */
async function headBesideAGet(url: string, headers: Record<string, string>): Promise<{ get: Response; head: Response }> {
  const alike = (one: Response, other: Response) => one.status === other.status && Bun.deepEquals(headersOf(one), headersOf(other));
  for (let attempt = 1; ; attempt++) {
    const before = await headersOnly(url, headers);
    const head = await ask(url, "HEAD", headers);
    if (alike(head, before)) return { get: before, head };
    const after = await headersOnly(url, headers);
    if (alike(head, after) || attempt === 5) return { get: after, head };
    await head.arrayBuffer();
  }
}

describe("every GET route of the OpenAPI document", () => {
  test("HEAD answers as GET does: the same status and headers, no body", async () => {
    expect(getRoutes.length).toBeGreaterThan(30);
    const statuses = new Set<number>();
    for (const { path, operation } of getRoutes) {
      const url = urlOf(path, operation);
      const headers = { authorization: `Bearer ${t.token}`, "accept-encoding": "gzip" };
      const { get, head } = await headBesideAGet(url, headers);
      expect(head.status, `HEAD ${url}`).toBe(get.status);
      expect(headersOf(head), `HEAD ${url}`).toEqual(headersOf(get));
      expect((await head.arrayBuffer()).byteLength, `HEAD ${url}`).toBe(0);
      statuses.add(get.status);
    }
    expect([...statuses]).toEqual(expect.arrayContaining([200, 404]));
  });

  test("every JSON answer of 1 KiB or more is compressed when the client takes it; smaller ones go as they are", async () => {
    const sizes: Record<string, number> = {};
    for (const { path, operation } of getRoutes) {
      const url = urlOf(path, operation);
      const response = await ask(url, "GET", { authorization: `Bearer ${t.token}`, "accept-encoding": "gzip" });
      if (!response.headers.get("content-type")?.startsWith("application/json")) {
        await response.body?.cancel();
        continue;
      }
      const sent = new Uint8Array(await response.arrayBuffer());
      const compressed = response.headers.get("content-encoding") === "gzip";
      const json = compressed ? Bun.gunzipSync(sent) : sent;
      JSON.parse(new TextDecoder().decode(json));
      expect(compressed, `GET ${url}: ${json.length} bytes of JSON`).toBe(json.length >= COMPRESS_FROM_BYTES);
      if (compressed) expect(response.headers.get("vary")).toBe("accept-encoding");
      sizes[path] = json.length;
    }
    // The answers the fuzzer found sent whole, and the lists the seed made large, are among those checked.
    for (const path of ["/v1/harnesses", "/v1/projects", "/v1/sessions", "/v1/openapi.json"]) expect(sizes[path]).toBeGreaterThanOrEqual(COMPRESS_FROM_BYTES);
  });
});

describe("HEAD without a token", () => {
  test("the console's files and a local health check answer as GET does", async () => {
    for (const path of ["/", "/manifest.webmanifest", "/sw.js", "/v1/health"]) {
      const { get, head } = await headBesideAGet(path, { "accept-encoding": "gzip" });
      expect(get.status, path).toBe(200);
      expect(head.status, path).toBe(200);
      expect(headersOf(head), path).toEqual(headersOf(get));
    }
  });

  test("elsewhere it is refused 401 as GET is", async () => {
    for (const path of ["/v1/info", "/v1/sessions", "/v1/nowhere"]) {
      const { get, head } = await headBesideAGet(path, {});
      expect(get.status, path).toBe(401);
      expect(head.status, path).toBe(401);
      expect(headersOf(head), path).toEqual(headersOf(get));
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ConsoleLink, ConsoleLinkBody } from "../../src/schemas/console.ts";
import { Project, UpdateProjectBody } from "../../src/schemas/projects.ts";
import { SyncNamespace, SyncPutBody } from "../../src/schemas/sync.ts";
import { assertMatchesSchema } from "../helpers/schema-assert.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { breakages, type JsonSchema, type Resolve, validValue } from "./schema-arbitrary.ts";

interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: JsonSchema;
}
interface Operation {
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

let t: TestServer;
let document: Document;
const resolve: Resolve = (ref) => document.components.schemas[ref.replace("#/components/schemas/", "")]!;

beforeAll(async () => {
  t = await startTestServer();
  await t.ready();
  document = (await (await t.api("/v1/openapi.json")).json()) as Document;
});
afterAll(() => t.stop());

/** One value a parameter takes, the same on every run. */
function sampleOf(schema: JsonSchema): string {
  return String(fc.sample(validValue(schema, resolve), { numRuns: 1, seed: 34 })[0]);
}

/** The operation's URL with a valid value for each path parameter and each required query parameter. */
function urlOf(path: string, operation: Operation): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = operation.parameters.find((candidate) => candidate.in === "path" && candidate.name === name)!;
    const value = sampleOf(parameter.schema);
    return encodeURIComponent(value === "." || value === ".." ? "x" : value);
  });
  const query = new URLSearchParams(
    operation.parameters
      .filter((parameter) => parameter.in === "query" && parameter.required)
      .map((parameter): [string, string] => [parameter.name, sampleOf(parameter.schema)]),
  );
  return query.size > 0 ? `${filled}?${query}` : filled;
}

const cursor = async () => ((await (await t.api("/v1/events/cursor")).json()) as { cursor: number }).cursor;

describe("a request body broken in one field never reaches its handler", () => {
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody?.content["application/json"])
        .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation, body: operation.requestBody!.content["application/json"]!.schema })),
    );

  test("every operation with a JSON body: 400 naming the field, and no event written", async () => {
    const checked = operations().filter(({ body }) => breakages(body, resolve).length > 0);
    expect(checked.length).toBeGreaterThan(40);
    const before = await cursor();
    for (const { method, path, operation, body } of checked) {
      const valid = fc.sample(validValue(body, resolve), { numRuns: 1, seed: 34 })[0] as Record<string, unknown>;
      for (const breakage of breakages(body, resolve)) {
        const response = await t.api(urlOf(path, operation), {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(breakage.apply(valid)),
        });
        const answer = (await response.json()) as { error: string };
        const what = `${method} ${path}, ${breakage.how} "${breakage.field}": ${answer.error}`;
        expect(response.status, what).toBe(400);
        expect(answer.error, what).toContain(`"${breakage.field}"`);
      }
    }
    expect(await cursor()).toBe(before);
  });
});

describe("a generated valid body is never refused", () => {
  const RUNS = 15;
  test("PATCH /v1/projects/{id}: any name of 1–200 characters is taken as it is", async () => {
    const created = await t.json<{ id: string }>("POST", "/v1/projects", { isScratch: true });
    const name = validValue(UpdateProjectBody.properties.name as JsonSchema).filter((value) => value !== null);
    await fc.assert(
      fc.asyncProperty(name, async (value) => {
        const { status, body: answer } = await t.json<{ name: string }>("PATCH", `/v1/projects/${created.body.id}`, { name: value });
        expect(status, JSON.stringify(answer)).toBe(200);
        assertMatchesSchema(Project, answer);
        expect(answer.name).toBe(value as string);
      }),
      { numRuns: RUNS },
    );
  });

  test.each([
    ["PUT", "/v1/sync/properties", "any entries", SyncPutBody, 200, SyncNamespace],
    ["POST", "/v1/console/links", "any device name of 1–60 characters", ConsoleLinkBody, 201, ConsoleLink],
  ] as const)("%s %s: %s", async (method, path, _what, bodySchema, success, answerSchema) => {
    await fc.assert(
      fc.asyncProperty(validValue(bodySchema as JsonSchema), async (body) => {
        const { status, body: answer } = await t.json(method, path, body);
        expect(status, JSON.stringify(answer)).toBe(success);
        assertMatchesSchema(answerSchema, answer);
      }),
      { numRuns: RUNS },
    );
  });
});

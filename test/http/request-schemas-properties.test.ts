import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import fc from "fast-check";
import { type TSchema, TypeGuard } from "@sinclair/typebox";
import { HttpError } from "../../src/http/http-error.ts";
import { type RequestPart, requestValidator } from "../../src/http/request-validator.ts";
import "../../src/schemas/formats.ts";
import { breakages, type JsonSchema, validValue } from "./schema-arbitrary.ts";

/** Every request schema the interface exports (`…Body`, `…Query`), by name. */
async function requestSchemas(): Promise<Array<{ name: string; schema: TSchema; part: RequestPart }>> {
  const folder = join(import.meta.dir, "..", "..", "src", "schemas");
  const found: Array<{ name: string; schema: TSchema; part: RequestPart }> = [];
  for (const file of new Bun.Glob("*.ts").scanSync(folder)) {
    const exports = (await import(join(folder, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (!/(Body|Query)$/.test(name) || name === "ErrorBody" || !TypeGuard.IsSchema(value)) continue;
      found.push({ name, schema: value, part: name.endsWith("Query") ? "query" : "body" });
    }
  }
  return found;
}

const schemas = await requestSchemas();

/** A query arrives as text: what a client would send for a typed value. */
function asQueryText(value: unknown): unknown {
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, String(field)]));
}

const RUNS = 25;

describe("request schemas, through the request validator", () => {
  test("there are request schemas to check", () => {
    expect(schemas.map((entry) => entry.name)).toEqual(expect.arrayContaining(["CreateProjectBody", "SendPromptBody", "SessionListQuery"]));
  });

  test.each(schemas.map((entry) => [entry.name, entry] as const))("%s: a generated valid value is never refused", (_name, { schema, part }) => {
    const validate = requestValidator(schema, part);
    fc.assert(
      fc.property(validValue(schema as JsonSchema), (value) => {
        validate(part === "query" ? asQueryText(value) : value);
      }),
      { numRuns: RUNS },
    );
  });

  const breakable = schemas
    .map((entry) => ({ ...entry, ways: breakages(entry.schema as JsonSchema, undefined, entry.part === "query" ? "query" : "body") }))
    .filter((entry) => entry.ways.length > 0);

  test.each(breakable.map((entry) => [entry.name, entry] as const))(
    "%s: a value broken in one field is refused 400 naming it",
    (_name, { schema, part, ways }) => {
      const validate = requestValidator(schema, part);
      fc.assert(
        fc.property(validValue(schema as JsonSchema), fc.constantFrom(...ways), (value, breakage) => {
          const broken = breakage.apply(value as Record<string, unknown>);
          let refusal: unknown;
          try {
            validate(part === "query" ? asQueryText(broken) : broken);
          } catch (error) {
            refusal = error;
          }
          expect(refusal, `${breakage.how} ${breakage.field}`).toBeInstanceOf(HttpError);
          expect((refusal as HttpError).status).toBe(400);
          expect((refusal as HttpError).message).toContain(`"${breakage.field}"`);
        }),
        { numRuns: RUNS },
      );
    },
  );
});

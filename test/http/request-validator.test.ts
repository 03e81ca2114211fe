import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { requestValidator } from "../../src/http/request-validator.ts";
import { HttpError } from "../../src/http/http-error.ts";

const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  ratio: Type.Optional(Type.Number()),
  deep: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ minLength: 1 })),
  state: Type.Optional(Type.Union([Type.Literal("idle"), Type.Literal("working")])),
});

/** The 400 message a validator refuses `input` with. */
function refusal(validate: (input: unknown) => unknown, input: unknown): string {
  try {
    validate(input);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return (error as HttpError).message;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe("query and path text", () => {
  const query = requestValidator(Query, "query");

  test("is converted where the schema says integer, number or boolean, and only there", () => {
    expect(query({ limit: "1", ratio: "1.5", deep: "true", name: "42", state: "idle" })).toEqual({
      limit: 1,
      ratio: 1.5,
      deep: true,
      name: "42",
      state: "idle",
    });
    expect(query({ limit: "01", ratio: "-2", deep: "false" })).toEqual({ limit: 1, ratio: -2, deep: false });
  });

  test("that is not exactly a number or boolean is refused, naming the parameter", () => {
    for (const limit of ["1.5", "abc", "", "+1", "1e2", "0", "201"]) {
      expect(refusal(query, { limit })).toBe('query parameter "limit" is invalid: expected an integer, at least 1, at most 200');
    }
    for (const ratio of ["1e3", "1.", ".5", "NaN"]) {
      expect(refusal(query, { ratio })).toBe('query parameter "ratio" is invalid: expected a number');
    }
    for (const deep of ["1", "TRUE", "yes", ""]) {
      expect(refusal(query, { deep })).toBe('query parameter "deep" is invalid: expected a boolean');
    }
    expect(refusal(query, { state: "bogus" })).toBe('query parameter "state" is invalid: expected one of "idle", "working"');
    expect(refusal(query, { name: "" })).toBe('query parameter "name" is invalid: expected a string, at least 1 characters');
  });

  test("leaves out what the schema does not know, and an empty query is valid when nothing is required", () => {
    expect(query({ limit: "2", other: "x" })).toEqual({ limit: 2 });
    expect(query(Object.create(null))).toEqual({});
    expect(query({})).toEqual({});
  });

  test("a required parameter left out is refused", () => {
    const required = requestValidator(Type.Object({ after: Type.Integer({ minimum: 0 }) }), "query");
    expect(refusal(required, {})).toBe('query parameter "after" is required');
    expect(required({ after: "7" })).toEqual({ after: 7 });
  });

  test("path segments are converted the same way", () => {
    const path = requestValidator(Type.Object({ id: Type.String(), index: Type.Integer({ minimum: 0 }) }), "path");
    expect(path({ id: "12", index: "3" })).toEqual({ id: "12", index: 3 });
    expect(refusal(path, { id: "a", index: "x" })).toBe('path parameter "index" is invalid: expected an integer, at least 0');
  });

  test("a JSON body is taken as it is: its strings are not converted", () => {
    const body = requestValidator(Type.Object({ limit: Type.Integer() }), "body");
    expect(body({ limit: 3, extra: true })).toEqual({ limit: 3 });
    expect(refusal(body, { limit: "3" })).toBe('body field "limit" is invalid: expected an integer');
  });

  test("a body may be left out only when none of its fields is required", () => {
    expect(refusal(requestValidator(Type.Object({ limit: Type.Integer() }), "body"), undefined)).toBe("a JSON request body is required");
    expect(requestValidator(Type.Object({ limit: Type.Optional(Type.Integer()) }), "body")(undefined)).toEqual({});
  });

  test("the same validator answers the same way on every call (its schema is read once)", () => {
    for (let round = 0; round < 3; round++) {
      expect(query({ limit: "5" })).toEqual({ limit: 5 });
      expect(refusal(query, { limit: "x" })).toContain('"limit"');
    }
  });
});

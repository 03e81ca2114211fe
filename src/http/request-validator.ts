import { KindGuard, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck, type ValueError } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { HttpError } from "./http-error.ts";
import { hasFreeFormField, MAX_FREE_FORM_DEPTH, tooDeepFreeFormField } from "./free-form-depth.ts";
import { withCodePointLengths } from "./code-point-lengths.ts";

export type RequestPart = "body" | "query" | "path";

const partLabel: Record<RequestPart, string> = { body: "body field", query: "query parameter", path: "path parameter" };

/** `/entries/0/timestamp` → `entries[0].timestamp` */
function fieldName(path: string): string {
  return path
    .split("/")
    .filter((part) => part.length > 0)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}

const BOUNDS: Array<[string, (limit: unknown) => string]> = [
  ["minimum", (limit) => `at least ${limit}`],
  ["maximum", (limit) => `at most ${limit}`],
  ["minLength", (limit) => `at least ${limit} characters`],
  ["maxLength", (limit) => `at most ${limit} characters`],
  ["minItems", (limit) => `at least ${limit} items`],
  ["maxItems", (limit) => `at most ${limit} items`],
];

const TYPE_NAMES: Record<string, string> = { integer: "an integer", object: "an object", array: "an array" };

function expectation(schema: Record<string, unknown>): string {
  const parts: string[] = [];
  if (schema.const !== undefined) parts.push(`must be ${JSON.stringify(schema.const)}`);
  else if (Array.isArray(schema.anyOf)) {
    const options = (schema.anyOf as Record<string, unknown>[]).map((option) =>
      option.const !== undefined ? JSON.stringify(option.const) : String(option.type ?? "value"),
    );
    parts.push(`expected one of ${options.join(", ")}`);
  } else if (typeof schema.type === "string") {
    parts.push(`expected ${TYPE_NAMES[schema.type] ?? `a ${schema.type}`}`);
  }
  for (const [key, words] of BOUNDS) {
    if (schema[key] !== undefined) parts.push(words(schema[key]));
  }
  if (schema.pattern !== undefined) parts.push(`matching ${schema.pattern}`);
  if (schema.format !== undefined) parts.push(`in ${schema.format} format`);
  return parts.join(", ");
}

const JSON_TYPE_OF: Record<string, (value: unknown) => boolean> = {
  object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => typeof value === "number",
  boolean: (value) => typeof value === "boolean",
};

/**
 * A union (`WorktreeBase | null`) fails as a whole; when the value plainly meant one branch (an
 * object for the object branch), the useful message is the first error inside that branch.
 */
function innermost(error: ValueError): ValueError {
  const branches = (error.schema as { anyOf?: TSchema[] }).anyOf;
  if (!Array.isArray(branches)) return error;
  const meant = branches.filter((branch) => JSON_TYPE_OF[String((branch as { type?: unknown }).type)]?.(error.value));
  if (meant.length !== 1) return error;
  const inner = Value.Errors(meant[0]!, error.value).First();
  return inner ? innermost({ ...inner, path: error.path + inner.path }) : error;
}

function describe(part: RequestPart, error: ValueError): string {
  const field = fieldName(error.path);
  const target = field ? `${partLabel[part]} "${field}"` : part === "body" ? "the request body" : `the ${part}`;
  if (error.message === "Expected required property") return `${target} is required`;
  return `${target} is invalid: ${expectation(error.schema as Record<string, unknown>) || error.message.toLowerCase()}`;
}

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

type TextKind = "integer" | "number" | "boolean";

/**
 * The properties of an object schema whose text is converted, read once per schema. KindGuard reads
 * a schema's kind only (TypeGuard checks it whole, nested properties and all).
 */
function textKinds(schema: TSchema): Array<[string, TextKind]> | undefined {
  if (!KindGuard.IsObject(schema)) return undefined;
  const kinds: Array<[string, TextKind]> = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (KindGuard.IsInteger(property)) kinds.push([name, "integer"]);
    else if (KindGuard.IsNumber(property)) kinds.push([name, "number"]);
    else if (KindGuard.IsBoolean(property)) kinds.push([name, "boolean"]);
  }
  return kinds;
}

/**
 * Query strings and path segments are text. A property the schema types as a number or boolean is
 * converted only when the text is exactly that (TypeBox's own conversion reads "1.5" as the integer 1).
 */
function convertText(kinds: Array<[string, TextKind]> | undefined, input: unknown): unknown {
  if (!kinds || !input || typeof input !== "object") return input;
  const converted: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [name, kind] of kinds) {
    const text = converted[name];
    if (typeof text !== "string") continue;
    const exact = kind === "integer" ? INTEGER_TEXT.test(text) : kind === "number" ? NUMBER_TEXT.test(text) : text === "true" || text === "false";
    if (exact) converted[name] = kind === "boolean" ? text === "true" : Number(text);
  }
  return converted;
}

/** What a validator works out of its schema once, on its first request. */
interface Checker {
  compiled: TypeCheck<TSchema>;
  checksDepth: boolean;
  kinds: Array<[string, TextKind]> | undefined;
  bodyMayBeLeftOut: boolean;
}

/**
 * Validates one part of a request against the route's own schema and returns the value to hand the
 * route: query and path text converted to numbers and booleans where the schema says so, and
 * properties the schema does not know removed. String lengths count characters (code points).
 * Free-form body fields may nest MAX_FREE_FORM_DEPTH levels deep. Refusals are 400 with the field named.
 */
export function requestValidator(schema: TSchema, part: RequestPart): (input: unknown) => unknown {
  // Compiled on a route's first request: compiling every route's schemas up front cost the server's
  // start about 30 ms, before it could answer anything.
  let checker: Checker | undefined;
  const nothingRequired = KindGuard.IsObject(schema) && (schema.required ?? []).length === 0;
  // A query string left out (the common read of a list) needs no checking when nothing is required.
  const emptyIsValid = part === "query" && nothingRequired;
  const prepare = (): Checker => ({
    // Lengths in characters, as the OpenAPI document says (code-point-lengths.ts).
    compiled: TypeCompiler.Compile(withCodePointLengths(schema)),
    checksDepth: part === "body" && hasFreeFormField(schema),
    kinds: part === "body" ? undefined : textKinds(schema),
    // A body whose every field is optional may be left out altogether.
    bodyMayBeLeftOut: part === "body" && nothingRequired,
  });
  return (input) => {
    if (emptyIsValid && isEmptyObject(input)) return {};
    checker ??= prepare();
    const { compiled, checksDepth, kinds, bodyMayBeLeftOut } = checker;
    if (part === "body" && input === undefined) {
      if (bodyMayBeLeftOut) input = {};
      else throw new HttpError(400, "a JSON request body is required");
    }
    const value = part === "body" ? input : convertText(kinds, input);
    if (!compiled.Check(value)) {
      const first = compiled.Errors(value).First();
      throw new HttpError(400, first ? describe(part, innermost(first)) : `the ${part} is invalid`);
    }
    const tooDeep = checksDepth ? tooDeepFreeFormField(schema, value) : undefined;
    if (tooDeep !== undefined) {
      throw new HttpError(400, `${partLabel.body} "${fieldName(tooDeep)}" nests arrays and objects more than ${MAX_FREE_FORM_DEPTH} levels deep`);
    }
    return Value.Clean(schema, value);
  };
}

function isEmptyObject(input: unknown): boolean {
  if (!input || typeof input !== "object") return false;
  for (const _ in input) return false;
  return true;
}

import fc from "fast-check";

/**
 * fast-check arbitraries from JSON Schema, the keywords our TypeBox request schemas use (a TypeBox
 * schema is one, and so is the OpenAPI document's copy of it): values a schema accepts, and values
 * made invalid in one named field.
 */
export type JsonSchema = {
  $ref?: string;
  type?: string;
  const?: unknown;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
};

/** How a `$ref` is looked up (the OpenAPI document's components); TypeBox schemas have none. */
export type Resolve = (ref: string) => JsonSchema;

const noRefs: Resolve = (ref) => {
  throw new Error(`no resolver for ${ref}`);
};

/** Characters of one to four UTF-8 bytes and one or two UTF-16 units: lengths must count each as one. */
const character = fc.oneof(
  fc.constantFrom("a", "é", "漢", "😀", "𝐀"),
  fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code >= 0xd800 && code <= 0xdfff ? code + 0x800 : code)),
);

/** Longer texts are generated only at their bound (exactly maxLength characters), not at random lengths. */
const RANDOM_LENGTH_SPAN = 24;
const LONGEST_BOUND_GENERATED = 4096;
/** Arrays nest (a window's workspaces, tabs, panes): a few items each keeps a value small. */
const MOST_ITEMS = 2;

const codePoints = (text: string): number => [...text].length;

function textArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? min + RANDOM_LENGTH_SPAN;
  if (schema.format === "date-time") {
    return fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((date) => date.toISOString());
  }
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    const within = (text: string) => codePoints(text) >= min && codePoints(text) <= max;
    // fast-check builds strings from a pattern without lookaheads; one with them filters random text.
    if (schema.pattern.includes("(?"))
      return fc
        .string({ unit: character, minLength: Math.max(min, 1), maxLength: min + RANDOM_LENGTH_SPAN })
        .filter((text) => within(text) && pattern.test(text));
    return fc.stringMatching(pattern, { maxLength: Math.min(max, min + RANDOM_LENGTH_SPAN) }).filter(within);
  }
  const random = fc.string({ unit: character, minLength: min, maxLength: Math.min(max, min + RANDOM_LENGTH_SPAN) });
  if (schema.maxLength === undefined || max > LONGEST_BOUND_GENERATED) return random;
  // At the bound: a few random characters, then one repeated (generating each of thousands is slow).
  const atBound = fc
    .tuple(fc.string({ unit: character, maxLength: Math.min(max, 8) }), character)
    .map(([head, fill]) => head + fill.repeat(max - codePoints(head)));
  return fc.oneof({ arbitrary: random, weight: 4 }, { arbitrary: atBound, weight: 1 });
}

/** Values `schema` accepts. */
export function validValue(schema: JsonSchema, resolve: Resolve = noRefs): fc.Arbitrary<unknown> {
  if (schema.$ref) return validValue(resolve(schema.$ref), resolve);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => validValue(branch, resolve)));
  switch (schema.type) {
    case "string":
      return textArbitrary(schema);
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const lengths = { minLength, maxLength: Math.min(schema.maxItems ?? minLength + MOST_ITEMS, minLength + MOST_ITEMS) };
      const items = validValue(schema.items ?? {}, resolve);
      return schema.uniqueItems ? fc.uniqueArray(items, { ...lengths, selector: (item) => JSON.stringify(item) }) : fc.array(items, lengths);
    }
    case "object":
      return objectValue(schema, resolve);
    case undefined:
      return fc.jsonValue({ maxDepth: 2 });
    default:
      throw new Error(`no arbitrary for type ${schema.type}`);
  }
}

function objectValue(schema: JsonSchema, resolve: Resolve): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, validValue(property, resolve)]));
  const fixed = fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
  const patterns = Object.entries(schema.patternProperties ?? {});
  if (patterns.length === 0) return fixed;
  const [pattern, valueSchema] = patterns[0]!;
  const keys = pattern === "^(.*)$" ? fc.string({ unit: character, minLength: 1, maxLength: 12 }) : fc.stringMatching(new RegExp(pattern), { maxLength: 24 });
  return fc.tuple(fixed, fc.dictionary(keys, validValue(valueSchema, resolve), { maxKeys: 3 })).map(([known, more]) => ({ ...more, ...known }));
}

/** One way to break one top-level field of an object: left out, of the wrong type, or a character too long. */
export interface Breakage {
  field: string;
  how: "missing" | "wrong type" | "too long";
  apply(value: Record<string, unknown>): Record<string, unknown>;
}

/** The JSON types a schema accepts (`undefined`: any). */
function acceptedTypes(schema: JsonSchema, resolve: Resolve): Set<string> | undefined {
  if (schema.$ref) return acceptedTypes(resolve(schema.$ref), resolve);
  if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
  if (schema.anyOf) {
    const all = new Set<string>();
    for (const branch of schema.anyOf) {
      const types = acceptedTypes(branch, resolve);
      if (!types) return undefined;
      for (const type of types) all.add(type);
    }
    return all;
  }
  if (schema.type === undefined) return undefined;
  return new Set(schema.type === "integer" ? ["number"] : [schema.type]);
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const WRONG_TYPES: unknown[] = [12345, true, null, ["x"], { x: 1 }, "x"];

/** The string schema with the tightest maxLength among a field's branches. */
function maxLengthOf(schema: JsonSchema, resolve: Resolve): JsonSchema | undefined {
  if (schema.$ref) return maxLengthOf(resolve(schema.$ref), resolve);
  if (schema.type === "string" && schema.maxLength !== undefined) return schema;
  return schema.anyOf?.map((branch) => maxLengthOf(branch, resolve)).find((found) => found !== undefined);
}

/**
 * Every way to break `schema`'s top-level fields: each required one left out, each typed one given a
 * value of another JSON type, each bounded string one character (code point) past its maxLength.
 */
export function breakages(schema: JsonSchema, resolve: Resolve = noRefs, part: "body" | "query" = "body"): Breakage[] {
  const object = schema.$ref ? resolve(schema.$ref) : schema;
  // A query's values are text: only a field that takes no text can be given the wrong type.
  const wrongTypes = part === "query" ? ["x"] : WRONG_TYPES;
  const found: Breakage[] = [];
  for (const field of object.required ?? []) {
    found.push({ field, how: "missing", apply: ({ [field]: _left, ...rest }) => rest });
  }
  for (const [field, property] of Object.entries(object.properties ?? {})) {
    const types = acceptedTypes(property, resolve);
    const wrong = types && wrongTypes.find((candidate) => !types.has(jsonType(candidate)));
    if (wrong !== undefined) found.push({ field, how: "wrong type", apply: (value) => ({ ...value, [field]: wrong }) });
    const bounded = maxLengthOf(property, resolve);
    if (bounded?.maxLength !== undefined && bounded.maxLength <= LONGEST_BOUND_GENERATED) {
      // Astral characters (two UTF-16 units each) where the field takes any text; ASCII where a pattern might want it.
      const tooLong = (bounded.pattern === undefined ? "𝐀" : "a").repeat(bounded.maxLength + 1);
      found.push({ field, how: "too long", apply: (value) => ({ ...value, [field]: tooLong }) });
    }
  }
  return found;
}

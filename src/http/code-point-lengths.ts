import { FormatRegistry, Kind, TypeRegistry, type TSchema } from "@sinclair/typebox";

/**
 * JSON Schema counts a string's `minLength` and `maxLength` in characters (code points), as the
 * OpenAPI document promises; TypeBox's checks count UTF-16 units, so an emoji counted twice and 150
 * of them broke a `maxLength` of 200. Requests are checked with their bounded strings turned into
 * this kind, which counts code points and checks `pattern` and `format` as TypeBox's String does.
 */
const CODE_POINT_STRING = "CodePointString";

interface BoundedString {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

/** Code points: UTF-16 units less one per surrogate pair (a lone surrogate counts as one, as in `[...text]`). */
function codePointLength(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      length--;
      index++;
    }
  }
  return length;
}

/** A text has at least half as many code points as units, and at most as many: most are decided without counting. */
function lengthWithin(text: string, min: number, max: number): boolean {
  const units = text.length;
  const fewest = (units + 1) >> 1;
  if (units < min || fewest > max) return false;
  if (units <= max && fewest >= min) return true;
  const length = codePointLength(text);
  return length >= min && length <= max;
}

const patterns = new Map<string, RegExp>();

function matches(pattern: string, text: string): boolean {
  let regex = patterns.get(pattern);
  if (!regex) {
    regex = new RegExp(pattern);
    patterns.set(pattern, regex);
  }
  return regex.test(text);
}

if (!TypeRegistry.Has(CODE_POINT_STRING)) {
  TypeRegistry.Set<BoundedString>(
    CODE_POINT_STRING,
    (schema, value) =>
      typeof value === "string" &&
      lengthWithin(value, schema.minLength ?? 0, schema.maxLength ?? Number.POSITIVE_INFINITY) &&
      (schema.pattern === undefined || matches(schema.pattern, value)) &&
      (schema.format === undefined || FormatRegistry.Get(schema.format)?.(value) === true),
  );
}

const isBoundedString = (node: Record<string | symbol, unknown>) => node[Kind] === "String" && (node.minLength !== undefined || node.maxLength !== undefined);

/**
 * `schema` for checking requests: every string with a length bound becomes the code-point kind,
 * keeping its keywords (so a refusal still says "at most 200 characters"). Subtrees without one are
 * shared, not copied.
 */
export function withCodePointLengths(schema: TSchema): TSchema {
  return convert(schema) as TSchema;
}

function convert(node: unknown): unknown {
  if (Array.isArray(node)) {
    const items = node.map(convert);
    return items.some((item, index) => item !== node[index]) ? items : node;
  }
  if (!node || typeof node !== "object") return node;
  const object = node as Record<string | symbol, unknown>;
  if (isBoundedString(object)) return { ...object, [Kind]: CODE_POINT_STRING };
  let copy: Record<string | symbol, unknown> | undefined;
  for (const [key, value] of Object.entries(object)) {
    const converted = convert(value);
    if (converted === value) continue;
    copy ??= { ...object };
    copy[key] = converted;
  }
  return copy ?? node;
}

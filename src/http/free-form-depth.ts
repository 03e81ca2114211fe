import { KindGuard, type TSchema } from "@sinclair/typebox";

/**
 * How deeply arrays and objects may nest inside a free-form JSON field (a sync `value`). Much deeper
 * values parse, but serialising them again overflows the stack, so a stored one could never be read.
 */
export const MAX_FREE_FORM_DEPTH = 64;

/** Measured with an explicit stack: a value nested 500,000 deep must not overflow the call stack here either. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.value === null || typeof next.value !== "object") continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth });
  }
  return false;
}

// KindGuard reads a schema's kind only; TypeGuard checks the schema whole at every node of the value
// (a sync write of 500 entries spent a quarter of its time there).
const isFreeForm = (schema: TSchema) => KindGuard.IsUnknown(schema) || KindGuard.IsAny(schema);

/** The schemas a value of `schema` may hold inside it, one level down. */
function childSchemas(schema: TSchema): TSchema[] {
  if (KindGuard.IsObject(schema)) return Object.values(schema.properties);
  if (KindGuard.IsArray(schema)) return [schema.items];
  if (KindGuard.IsRecord(schema)) return Object.values(schema.patternProperties);
  if (KindGuard.IsUnion(schema)) return schema.anyOf;
  return [];
}

/** Whether a request schema has a free-form field anywhere; routes without one skip the walk. */
export function hasFreeFormField(schema: TSchema): boolean {
  return isFreeForm(schema) || childSchemas(schema).some(hasFreeFormField);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The path (`/entries/0/value`) of the first free-form field of a valid value that nests deeper than
 * MAX_FREE_FORM_DEPTH, or undefined. The walk follows the schema, which is only as deep as it is written.
 */
export function tooDeepFreeFormField(schema: TSchema, value: unknown, path = ""): string | undefined {
  if (isFreeForm(schema)) return nestsDeeperThan(value, MAX_FREE_FORM_DEPTH) ? path : undefined;
  const inside: Array<[TSchema, unknown, string]> = [];
  if (KindGuard.IsObject(schema) && isPlainObject(value)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (name in value) inside.push([property, value[name], `${path}/${name}`]);
    }
  } else if (KindGuard.IsArray(schema) && Array.isArray(value)) {
    for (const [index, item] of value.entries()) inside.push([schema.items, item, `${path}/${index}`]);
  } else if (KindGuard.IsRecord(schema) && isPlainObject(value)) {
    const valueSchema = Object.values(schema.patternProperties)[0];
    if (valueSchema) for (const [key, item] of Object.entries(value)) inside.push([valueSchema, item, `${path}/${key}`]);
  } else if (KindGuard.IsUnion(schema)) {
    for (const branch of schema.anyOf) inside.push([branch, value, path]);
  }
  for (const [childSchema, childValue, childPath] of inside) {
    const found = tooDeepFreeFormField(childSchema, childValue, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

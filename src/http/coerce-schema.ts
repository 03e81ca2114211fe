import { t } from "elysia";
import { OptionalKind, TypeGuard, type TObject, type TSchema } from "@sinclair/typebox";

/** Schema options without TypeBox's own markers, to rebuild a property with Elysia's types. */
function optionsOf(schema: TSchema): Record<string, unknown> {
  const { type: _type, ...options } = schema as TSchema & { type?: unknown };
  return options;
}

function coerceProperty(property: TSchema): TSchema {
  let coerced: TSchema = property;
  if (TypeGuard.IsInteger(property)) coerced = t.Integer(optionsOf(property));
  else if (TypeGuard.IsNumber(property)) coerced = t.Number(optionsOf(property));
  else if (TypeGuard.IsBoolean(property)) coerced = t.Boolean(optionsOf(property));
  return property[OptionalKind] === "Optional" && coerced !== property ? t.Optional(coerced) : coerced;
}

/**
 * Query strings and path segments arrive as text. The route table declares them with plain TypeBox
 * types (so the OpenAPI document says `integer`); this rebuilds numeric and boolean properties with
 * Elysia's types, which accept their text form.
 */
export function coercibleParameters(schema: TSchema | undefined): TSchema | undefined {
  if (!schema || !TypeGuard.IsObject(schema)) return schema;
  const object = schema as TObject;
  const properties = Object.fromEntries(
    Object.entries(object.properties).map(([name, property]) => [name, coerceProperty(property)]),
  );
  return t.Object(properties, optionsOf(object));
}

/** JSON as the vendor APIs send it, and the answers side calls get when they ask for JSON. */
export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A value that fits a JSON schema (or an OpenAPI-style one with upper-case types, as Gemini's are):
 * "user" wherever the schema offers it, so a next-speaker check says the user speaks next and the
 * agent ends its turn.
 */
export function valueFor(schema: unknown): unknown {
  if (!isObject(schema)) return "";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.includes("user") ? "user" : schema.enum[0];
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) return valueFor(schema.anyOf[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((kind) => kind !== "null") : schema.type;
  switch (String(type ?? (isObject(schema.properties) ? "object" : "string")).toLowerCase()) {
    case "object": {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(properties);
      return Object.fromEntries(required.map((key) => [key, valueFor(properties[key])]));
    }
    case "array":
      return [];
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    default:
      return "Scripted answer";
  }
}

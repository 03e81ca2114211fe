import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { withCodePointLengths } from "../../src/http/code-point-lengths.ts";

/** Fails with every mismatch listed when `value` does not satisfy `schema` (lengths in characters, as the interface counts them). */
export function assertMatchesSchema(schema: TSchema, value: unknown): void {
  const errors = [...Value.Errors(withCodePointLengths(schema), value)].map((error) => `${error.path || "/"}: ${error.message}`);
  if (errors.length > 0) {
    throw new Error(`response does not match its schema:\n  ${errors.slice(0, 10).join("\n  ")}\n${JSON.stringify(value).slice(0, 500)}`);
  }
}

import { ValidationError } from "elysia";
import { DomainError, ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from "../errors.ts";
import { HttpError } from "./http-error.ts";
import type { Logger } from "../logging/logger.ts";

export interface MappedError {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

const domainStatus = (error: DomainError): number => {
  if (error instanceof InvalidInputError) return 400;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof ForbiddenError) return 403;
  return 400;
};

/** `/entries/0/timestamp` → `entries[0].timestamp` */
function fieldName(path: string): string {
  return path
    .split("/")
    .filter((part) => part.length > 0)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}

function describeValidation(error: ValidationError): string {
  const where = error.type === "body" ? "body" : error.type === "query" ? "query parameter" : "path parameter";
  const first = error.valueError;
  if (error.type === "body" && error.value === undefined) return "a JSON request body is required";
  if (!first) return `the ${where} is invalid`;
  const field = fieldName(first.path);
  const target = field ? `${where} field "${field}"` : `the ${where}`;
  if (first.message === "Expected required property") return `${target} is required`;
  const expected = first.schema && typeof first.schema === "object" ? describeSchema(first.schema as Record<string, unknown>) : "";
  return `${target} is invalid: ${expected || first.message.toLowerCase()}`;
}

/** Elysia wraps numbers in a string-or-number union to coerce queries; say what is meant, not that. */
function describeSchema(schema: Record<string, unknown>): string {
  const variants = Array.isArray(schema.anyOf) ? (schema.anyOf as Record<string, unknown>[]) : [schema];
  const numeric = variants.find((v) => v.type === "integer" || v.type === "number");
  const base = numeric ?? variants[0] ?? schema;
  const parts: string[] = [];
  if (base.const !== undefined) parts.push(`must be ${JSON.stringify(base.const)}`);
  else if (typeof base.type === "string") parts.push(`expected ${base.type === "integer" ? "an integer" : `a ${base.type}`}`);
  const min = schema.minimum ?? base.minimum;
  const max = schema.maximum ?? base.maximum;
  if (min !== undefined) parts.push(`at least ${min}`);
  if (max !== undefined) parts.push(`at most ${max}`);
  if (base.minLength !== undefined) parts.push(`at least ${base.minLength} characters`);
  if (base.maxLength !== undefined) parts.push(`at most ${base.maxLength} characters`);
  if (base.maxItems !== undefined) parts.push(`at most ${base.maxItems} items`);
  if (base.pattern !== undefined) parts.push(`matching ${base.pattern}`);
  return parts.join(", ");
}

/**
 * Turns anything thrown while serving a request into a status and a sentence. Unexpected errors are
 * logged with their detail and answered with a generic message.
 */
export function mapError(code: string | number, error: unknown, request: Request, logger: Logger): MappedError {
  // Elysia wraps what a body parser throws in a ParseError; the parser's own error says more.
  if (code === "PARSE" && error instanceof Error && error.cause instanceof HttpError) error = error.cause;
  if (error instanceof HttpError) return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof DomainError) return { status: domainStatus(error), message: error.message };
  if (error instanceof ValidationError) {
    if (error.type === "response") {
      logger.error("response did not match its schema", { path: new URL(request.url).pathname, detail: error.message });
      return { status: 500, message: "the server failed to complete the request" };
    }
    return { status: 400, message: describeValidation(error) };
  }
  if (code === "NOT_FOUND") {
    return { status: 404, message: `no route ${request.method} ${new URL(request.url).pathname}` };
  }
  if (code === "PARSE") return { status: 400, message: "the request body could not be parsed as JSON" };
  logger.error("unexpected error while serving a request", {
    method: request.method,
    path: new URL(request.url).pathname,
    error,
  });
  return { status: 500, message: "the server failed to complete the request; the details are in its log" };
}

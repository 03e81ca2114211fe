import {
  AnswerTimeoutError,
  DomainError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotAuthenticatedError,
  NotFoundError,
  PreconditionFailedError,
  PreconditionRequiredError,
  RangeNotSatisfiableError,
  TooLargeError,
  TooManyRequestsError,
  UpstreamError,
} from "../errors.ts";
import { HttpError } from "./http-error.ts";
import type { Logger } from "../logging/logger.ts";
import { storageProblem } from "../store/storage-errors.ts";

export interface MappedError {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

const domainStatus = (error: DomainError): number => {
  if (error instanceof InvalidInputError) return 400;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof GoneError) return 410;
  if (error instanceof TooLargeError) return 413;
  if (error instanceof PreconditionFailedError) return 412;
  if (error instanceof PreconditionRequiredError) return 428;
  if (error instanceof UpstreamError) return 502;
  if (error instanceof AnswerTimeoutError) return 504;
  if (error instanceof ForbiddenError) return 403;
  if (error instanceof NotAuthenticatedError) return 401;
  return 400;
};

/**
 * Turns anything thrown while serving a request into a status and a sentence. Unexpected errors are
 * logged with their detail and answered with a generic message.
 */
export function mapError(code: string | number, error: unknown, request: Request, logger: Logger): MappedError {
  // Elysia wraps what a body parser throws in a ParseError; the parser's own error says more.
  if (code === "PARSE" && error instanceof Error && error.cause instanceof HttpError) error = error.cause;
  if (error instanceof HttpError) return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof TooManyRequestsError) return { status: 429, message: error.message, headers: { "retry-after": String(error.retryAfterSeconds) } };
  if (error instanceof RangeNotSatisfiableError) return { status: 416, message: error.message, headers: { "content-range": `bytes */${error.size}` } };
  if (error instanceof DomainError) return { status: domainStatus(error), message: error.message };
  if (code === "NOT_FOUND") {
    return { status: 404, message: `no route ${request.method} ${new URL(request.url).pathname}` };
  }
  if (code === "PARSE") return { status: 400, message: "the request body could not be parsed as JSON" };
  const storage = storageProblem(error);
  if (storage) {
    logger.warn("a request could not be written", { method: request.method, path: new URL(request.url).pathname, problem: storage.kind, error });
    return { status: storage.kind === "full" ? 507 : 503, message: storage.message, headers: { "retry-after": "5" } };
  }
  logger.error("unexpected error while serving a request", {
    method: request.method,
    path: new URL(request.url).pathname,
    error,
  });
  return INTERNAL_ERROR;
}

const INTERNAL_ERROR: MappedError = { status: 500, message: "the server failed to complete the request; the details are in its log" };

/** The `{error}` response of a mapped error: the one shape every failure has. */
export function errorResponse(mapped: MappedError = INTERNAL_ERROR): Response {
  return new Response(JSON.stringify({ error: mapped.message }), {
    status: mapped.status,
    headers: { "content-type": "application/json; charset=utf-8", ...mapped.headers },
  });
}

/**
 * Errors the domain raises when a request cannot be carried out. The HTTP layer maps each kind to a
 * status; the message is shown to the client as is, so it must be a sentence about the request, never
 * an internal detail.
 */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input is well-formed but not acceptable (400). */
export class InvalidInputError extends DomainError {}
/** The addressed thing does not exist (404). */
export class NotFoundError extends DomainError {}
/** The request conflicts with the current state: a duplicate, busy, in flight (409). */
export class ConflictError extends DomainError {}
/** What the request asks for is no longer kept (410): events behind the log's retention horizon. */
export class GoneError extends DomainError {}
/** What the caller presented in place of Atrium's token (a pairing code) is wrong or spent (401). */
export class NotAuthenticatedError extends DomainError {}
/** The caller may not do this (403). */
export class ForbiddenError extends DomainError {}
/** The caller tried too often in too short a time (429); it may try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
/** The request's condition (`If-Match`, `If-None-Match`) does not hold: the thing changed since the client read it (412). */
export class PreconditionFailedError extends DomainError {}
/** A change that could overwrite someone else's must say what it expects to replace (428). */
export class PreconditionRequiredError extends DomainError {}
/** The byte range asked for is not in the content (416). */
export class RangeNotSatisfiableError extends DomainError {
  constructor(
    message: string,
    readonly size: number,
  ) {
    super(message);
  }
}
/** The content is larger than what is accepted (413). */
export class TooLargeError extends DomainError {}
/** What the request is passed on to (a plugin's process) is not running or did not answer (502). */
export class UpstreamError extends DomainError {}
/** What the request waited for (a client's answer) did not come in time (504). */
export class AnswerTimeoutError extends DomainError {}

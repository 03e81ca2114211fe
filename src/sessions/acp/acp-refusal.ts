/**
 * A request of the agent's that the client refuses (a path outside the session, an unknown terminal).
 * Raised where the rule lives; the ACP connection turns it into the protocol's error with that code,
 * so the modules that make the rules do not load the ACP SDK.
 */
export class AcpRefusal extends Error {
  constructor(
    readonly kind: "invalidParams" | "resourceNotFound" | "internalError",
    message: string,
  ) {
    super(message);
  }
}

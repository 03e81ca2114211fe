import { randomBytes } from "node:crypto";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import { NotAuthenticatedError } from "../errors.ts";

/** How long the link `atrium console` prints can be opened. */
export const CONSOLE_LINK_TTL_MS = 5 * 60_000;

export interface ConsoleLink {
  code: string;
  expiresAt: string;
}

/**
 * One-time codes for signing a browser in to the console without a token in a URL: the link carries
 * a code (in its fragment, which the browser never sends), the page exchanges it once for a named
 * token of its own, revocable like any other. Codes live in memory: a restart voids an unused link.
 */
export class ConsoleLinks {
  private readonly codes = new Map<string, number>();

  constructor(
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
  ) {}

  create(): ConsoleLink {
    this.forgetExpired();
    const code = randomBytes(32).toString("base64url");
    const expiresAt = this.clock.now() + CONSOLE_LINK_TTL_MS;
    this.codes.set(code, expiresAt);
    return { code, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Spends a code for a new token named `console-…`; a wrong, used or expired code is a 401. */
  exchange(code: string): { name: string; token: string } {
    this.forgetExpired();
    if (!this.codes.delete(code)) throw new NotAuthenticatedError("this console link is wrong, used or expired; run `atrium console` again");
    return this.tokens.create(`console-${randomBytes(4).toString("hex")}`);
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
  }
}

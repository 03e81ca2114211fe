import { ADMIN_TOKEN_NAME, type AccessTokens } from "./access-tokens.ts";

/** The token a long-lived connection (an event stream, a terminal's socket) was opened with, when it can be revoked while it is open: a named one. */
export interface TokenAuthorization {
  tokenName: string;
  /** Whether the token is still valid; it may be revoked from another process, straight in the database. */
  isCurrent(): boolean;
}

/** What a connection opened with `presented` (a token verified as `name`) checks again while open; nothing for the admin token, which cannot be revoked. */
export function revocableAuthorization(tokens: AccessTokens, presented: string, name: string): TokenAuthorization | undefined {
  if (name === ADMIN_TOKEN_NAME) return undefined;
  return { tokenName: name, isCurrent: () => tokens.stillValid(presented) };
}

interface Watched {
  authorization: TokenAuthorization;
  onRevoked: () => void;
}

/**
 * Ends the connections of revoked tokens. While a connection opened with a named token is open, the
 * tokens of all such connections are checked again every `checkMs` (not per message: that is one hash
 * and one indexed read per connection), and a revoked token's connections are told.
 */
export class RevocationWatch {
  private readonly watched = new Set<Watched>();
  private checks: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly checkMs: number) {}

  /** Calls `onRevoked` once, when the token is found revoked; the function returned stops watching (the connection closed). */
  watch(authorization: TokenAuthorization, onRevoked: () => void): () => void {
    const watched: Watched = { authorization, onRevoked };
    this.watched.add(watched);
    this.checks ??= setInterval(() => this.check(), this.checkMs);
    return () => this.unwatch(watched);
  }

  private check(): void {
    for (const watched of [...this.watched]) {
      if (isStillCurrent(watched.authorization)) continue;
      this.unwatch(watched);
      watched.onRevoked();
    }
  }

  private unwatch(watched: Watched): void {
    this.watched.delete(watched);
    if (this.watched.size > 0) return;
    clearInterval(this.checks);
    this.checks = undefined;
  }
}

/** A token that cannot be checked (the database failing) is not trusted; the client can reconnect. */
export function isStillCurrent(authorization: TokenAuthorization): boolean {
  try {
    return authorization.isCurrent();
  } catch {
    return false;
  }
}

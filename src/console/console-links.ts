import { randomBytes } from "node:crypto";
import type { AccessTokens } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import { NotAuthenticatedError } from "../errors.ts";
import type { ConsoleLink } from "../schemas/console.ts";

export type { ConsoleLink };

/** How long the link `atrium console` prints can be opened. */
export const CONSOLE_LINK_TTL_MS = 5 * 60_000;

/** A device's name as it goes into its token's name (`console-my-phone-1a2b3c4d`). */
const deviceSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32);

/**
 * One-time codes for signing a browser in to the console without a token in a URL: the link carries
 * a code (in its fragment, which the browser never sends), the page exchanges it once for a named
 * token of its own, revocable like any other. Codes live in memory: a restart voids an unused link.
 */
export class ConsoleLinks {
  /** Each code's expiry, and the device it is for (its token is named after it). */
  private readonly codes = new Map<string, { expiresAt: number; device: string }>();

  constructor(
    private readonly tokens: AccessTokens,
    private readonly clock: Clock,
    /** Where the server is reached from elsewhere, best first, as of now (src/system/server-address.ts). */
    private readonly reachableUrls: () => readonly string[],
  ) {}

  /** A one-time code, for a device if named ("Open on your phone"). */
  create(deviceName?: string): ConsoleLink {
    this.forgetExpired();
    const code = randomBytes(32).toString("base64url");
    const expiresAt = this.clock.now() + CONSOLE_LINK_TTL_MS;
    this.codes.set(code, { expiresAt, device: deviceName ? deviceSlug(deviceName) : "" });
    // The code rides in the fragment: browsers never send it, so it stays out of logs and proxies.
    return { code, expiresAt: new Date(expiresAt).toISOString(), urls: this.reachableUrls().map((url) => `${url}/#code=${code}`) };
  }

  /** Whether a console ever signed in with a link (its token is still there). */
  anySignedIn(): boolean {
    return this.tokens.list().some((token) => token.name.startsWith("console-"));
  }

  /** Spends a code for a new token named `console-[device-]…`; a wrong, used or expired code is a 401. */
  exchange(code: string): { name: string; token: string } {
    this.forgetExpired();
    const link = this.codes.get(code);
    if (!link || !this.codes.delete(code)) throw new NotAuthenticatedError("this console link is wrong, used or expired; run `atrium console` again");
    return this.tokens.create(`console-${link.device ? `${link.device}-` : ""}${randomBytes(4).toString("hex")}`);
  }

  private forgetExpired(): void {
    const now = this.clock.now();
    for (const [code, link] of this.codes) if (link.expiresAt <= now) this.codes.delete(code);
  }
}

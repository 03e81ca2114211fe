import { existsSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import type { StoredToken, TokenRepository } from "../store/token-repository.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";

export const ADMIN_TOKEN_NAME = "admin";
/** A paired machine's token is named after it; people's tokens cannot take such a name. */
const MACHINE_TOKEN_PREFIX = "machine.";
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** last_used_at is refreshed at most this often, so that auth does not write on every request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface TokenIdentity {
  name: string;
}

// Web Crypto and Bun's hasher: node:crypto is not loaded at start (src/system/node-crypto.ts).
export function generateToken(): string {
  return `atr_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
}

function sha256(value: string): Buffer {
  return new Bun.CryptoHasher("sha256").update(value).digest();
}

export function machineTokenName(machineId: string): string {
  return `${MACHINE_TOKEN_PREFIX}${machineId}`;
}

/** The machine a token name belongs to, for a paired machine's token; undefined for any other. */
export function machineOfTokenName(name: string): string | undefined {
  return name.startsWith(MACHINE_TOKEN_PREFIX) ? name.slice(MACHINE_TOKEN_PREFIX.length) : undefined;
}

/**
 * Reads the admin token from its file, creating it (mode 0600) on first use. Used by the CLI too,
 * which needs the token without opening the database.
 */
export function readOrCreateAdminToken(tokenFile: string): string {
  if (existsSync(tokenFile)) {
    const token = readFileSync(tokenFile, "utf8").trim();
    if (token.length > 0) return token;
  }
  const token = generateToken();
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600, flag: "w" });
  chmodSync(tokenFile, 0o600);
  return token;
}

/**
 * Compares two strings in time that depends only on their length (which is no secret for tokens of a
 * fixed format): every character is visited and differences are OR-ed together, with no early exit.
 */
export function constantTimeEquals(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * The admin token (a file in the data dir) and named extra tokens (stored as SHA-256 hashes; the
 * tokens are 256 random bits, so a fast hash is enough). Named tokens are found by their hash, which
 * reveals nothing about the token through timing.
 */
export class AccessTokens {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly adminToken: string,
    private readonly tokens: TokenRepository,
    private readonly now: () => Date = () => new Date(),
    private readonly recordsUse = true,
  ) {}

  /** The same tokens, checked without noting their use: while the database migrates, the server writes nothing. */
  withoutRecordingUse(): AccessTokens {
    return new AccessTokens(this.adminToken, this.tokens, this.now, false);
  }

  /**
   * The admin token is compared in constant time without hashing or allocating: this runs on every
   * request, and both showed up in the server's profile.
   */
  verify(presented: string): TokenIdentity | null {
    const identity = this.identify(presented);
    if (identity !== null && identity.name !== ADMIN_TOKEN_NAME && this.recordsUse) this.touch(identity.name);
    return identity;
  }

  /**
   * Whether a token that was accepted earlier still is, without noting a use: a named token may have
   * been revoked since, by `atrium token revoke` in another process, straight in the database.
   */
  stillValid(presented: string): boolean {
    return this.identify(presented) !== null;
  }

  /** The name of the token presented (null when it is none of ours), without noting a use. */
  nameOf(presented: string): string | null {
    return this.identify(presented)?.name ?? null;
  }

  private identify(presented: string): TokenIdentity | null {
    if (constantTimeEquals(presented, this.adminToken)) return { name: ADMIN_TOKEN_NAME };
    const name = this.tokens.findNameByHash(sha256(presented).toString("hex"));
    return name === undefined ? null : { name };
  }

  create(name: string): { name: string; token: string } {
    if (!TOKEN_NAME.test(name)) {
      throw new InvalidInputError("a token name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit");
    }
    if (name === ADMIN_TOKEN_NAME) throw new ConflictError(`the name "${ADMIN_TOKEN_NAME}" is reserved for the admin token`);
    if (name.startsWith(MACHINE_TOKEN_PREFIX)) throw new ConflictError(`names starting "${MACHINE_TOKEN_PREFIX}" are for paired machines' tokens`);
    const token = generateToken();
    if (!this.tokens.insert(name, sha256(token).toString("hex"), this.now().toISOString())) {
      throw new ConflictError(`a token named "${name}" already exists`);
    }
    return { name, token };
  }

  /**
   * Keeps `token` as the paired machine's, replacing the one it had (a machine paired again). The
   * token is made by the caller: it travels to the peer before anything is stored here.
   */
  storeForMachine(machineId: string, token: string): void {
    const name = machineTokenName(machineId);
    this.tokens.delete(name);
    this.tokens.insert(name, sha256(token).toString("hex"), this.now().toISOString());
  }

  /** Revokes a paired machine's token; nothing happens when it has none. */
  revokeMachine(machineId: string): void {
    this.tokens.delete(machineTokenName(machineId));
    this.lastTouched.delete(machineTokenName(machineId));
  }

  list(): StoredToken[] {
    return this.tokens.list();
  }

  revoke(name: string): void {
    if (!this.tokens.delete(name)) throw new NotFoundError(`no token is named "${name}"`);
    this.lastTouched.delete(name);
  }

  private touch(name: string): void {
    const now = this.now();
    const last = this.lastTouched.get(name) ?? 0;
    if (now.getTime() - last < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(name, now.getTime());
    this.tokens.touch(name, now.toISOString());
  }
}

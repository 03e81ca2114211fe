import { createHash, randomInt } from "node:crypto";
import type { Clock } from "../clock.ts";
import { NotAuthenticatedError, TooManyRequestsError } from "../errors.ts";
import type { PairingCode } from "../schemas/machines.ts";
import type { MachineRepository } from "../store/machine-repository.ts";

/** Letters and digits nobody misreads (no 0/O, 1/I/L): 31 of them. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 10;
export const PAIRING_CODE_TTL_MS = 10 * 60_000;
/** Wrong codes accepted within a window before further tries are refused until it passes. */
export const PAIRING_FAILURE_LIMIT = 5;
const FAILURE_WINDOW_MS = 60_000;

/** `abcde-fghjk`, `ABCDE FGHJK` and `ABCDEFGHJK` are one code. */
const normalize = (code: string): string => code.replace(/[\s-]/g, "").toUpperCase();
const hashOf = (code: string): string => createHash("sha256").update(normalize(code)).digest("hex");

/**
 * One-use codes that let another machine pair with this one, kept as hashes. A code has 49 bits
 * (10 characters of 31); with five wrong tries a minute allowed, guessing one within its ten
 * minutes has odds of about one in 10^13.
 */
export class PairingCodes {
  private failures: number[] = [];

  constructor(
    private readonly repository: MachineRepository,
    private readonly clock: Clock,
  ) {}

  issue(createdBy: string): PairingCode {
    const raw = Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
    const code = `${raw.slice(0, 5)}-${raw.slice(5)}`;
    const expiresAt = new Date(this.clock.now() + PAIRING_CODE_TTL_MS).toISOString();
    this.repository.insertCode(hashOf(code), createdBy, expiresAt);
    return { code, expiresAt };
  }

  /**
   * Spends a code and answers who made it; run it in the transaction that pairs, so that a pairing
   * that fails later leaves the code unspent. A wrong, spent or expired code is a 401; after too
   * many of those in a minute every try is a 429 until the minute has passed, the right code too.
   */
  take(code: string): string {
    const now = this.clock.now();
    this.failures = this.failures.filter((at) => now - at < FAILURE_WINDOW_MS);
    if (this.failures.length >= PAIRING_FAILURE_LIMIT) {
      const retryAfterSeconds = Math.ceil((this.failures[0]! + FAILURE_WINDOW_MS - now) / 1000);
      throw new TooManyRequestsError(`too many wrong pairing codes; try again in ${retryAfterSeconds} s`, retryAfterSeconds);
    }
    const createdBy = this.repository.takeCode(hashOf(code), new Date(now).toISOString());
    if (createdBy === undefined) {
      this.failures.push(now);
      throw new NotAuthenticatedError("the pairing code is wrong, used or expired; make a new one on the other machine");
    }
    return createdBy;
  }
}

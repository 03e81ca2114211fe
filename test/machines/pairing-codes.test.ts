import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { NotAuthenticatedError, TooManyRequestsError } from "../../src/errors.ts";
import { PAIRING_CODE_TTL_MS, PAIRING_FAILURE_LIMIT, PairingCodes } from "../../src/machines/pairing-codes.ts";
import { MachineRepository } from "../../src/store/machine-repository.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";

let db: TestStore;
let clock: ManualClock;
let codes: PairingCodes;
beforeEach(() => {
  db = openTestStore();
  clock = new ManualClock();
  codes = new PairingCodes(new MachineRepository(db.store), clock);
});
afterEach(() => db.close());

const storedHashes = () => db.store.db.query<{ code_hash: string }, []>("SELECT code_hash FROM pairing_codes").all();

describe("pairing codes", () => {
  test("a code is kept only as its hash, names who made it, and works once", () => {
    const { code, expiresAt } = codes.issue("phone");
    expect(expiresAt).toBe(new Date(clock.now() + PAIRING_CODE_TTL_MS).toISOString());
    expect(storedHashes().map((row) => row.code_hash)).not.toContain(code);
    expect(storedHashes()[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(codes.take(code)).toBe("phone");
    expect(() => codes.take(code)).toThrow(NotAuthenticatedError);
    expect(storedHashes()).toEqual([]);
  });

  test("a code expires after ten minutes", async () => {
    const early = codes.issue("admin").code;
    const late = codes.issue("admin").code;
    await clock.advance(PAIRING_CODE_TTL_MS - 1);
    expect(codes.take(early)).toBe("admin");
    await clock.advance(1);
    expect(() => codes.take(late)).toThrow("the pairing code is wrong, used or expired");
  });

  test("a code taken in a pairing that fails is not spent: the transaction's rollback keeps it", () => {
    const { code } = codes.issue("admin");
    expect(() =>
      db.store.transaction(() => {
        codes.take(code);
        throw new Error("the pairing failed after the code was taken");
      }),
    ).toThrow("the pairing failed");
    expect(codes.take(code)).toBe("admin");
  });

  test("after five wrong codes in a minute every try is refused until the minute has passed", async () => {
    const { code } = codes.issue("admin");
    for (let i = 0; i < PAIRING_FAILURE_LIMIT; i++) expect(() => codes.take(`WRONG-${i}`)).toThrow(NotAuthenticatedError);
    await clock.advance(20_000);
    let refusal: unknown;
    try {
      codes.take(code);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(TooManyRequestsError);
    expect((refusal as TooManyRequestsError).retryAfterSeconds).toBe(40);
    await clock.advance(40_000);
    expect(codes.take(code)).toBe("admin");
  });
});

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import type { Store } from "../../src/store/database.ts";
import { TokenRepository } from "../../src/store/token-repository.ts";
import { AccessTokens, constantTimeEquals, readOrCreateAdminToken } from "../../src/auth/access-tokens.ts";
import { openTestStore, type TestStore } from "../helpers/test-store.ts";

let db: TestStore;
let store: Store;
let tokens: AccessTokens;
let admin: string;
beforeEach(() => {
  db = openTestStore();
  store = db.store;
  admin = readOrCreateAdminToken(join(db.dir, "token"));
  tokens = new AccessTokens(admin, new TokenRepository(store));
});
afterEach(() => db.close());

describe("access tokens", () => {
  test("the admin token file is created once, private, and read back the same", () => {
    const file = join(db.dir, "token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(admin).toMatch(/^atr_[A-Za-z0-9_-]{43}$/);
    expect(readOrCreateAdminToken(file)).toBe(admin);
  });

  test("an empty token file gets a new token", () => {
    const file = join(db.dir, "empty-token");
    writeFileSync(file, "\n");
    const token = readOrCreateAdminToken(file);
    expect(token).toStartWith("atr_");
    expect(readFileSync(file, "utf8").trim()).toBe(token);
  });

  test("the admin token verifies; anything else does not", () => {
    expect(tokens.verify(admin)).toEqual({ name: "admin" });
    expect(tokens.verify(`${admin}x`)).toBeNull();
    expect(tokens.verify("")).toBeNull();
  });

  test("named tokens are stored hashed, verify, list and revoke", () => {
    const { token } = tokens.create("phone");
    expect(tokens.verify(token)).toEqual({ name: "phone" });
    const raw = store.db.query<{ token_hash: string }, []>("SELECT token_hash FROM access_tokens").get();
    expect(raw!.token_hash).not.toContain(token);
    expect(raw!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokens.list().map((t) => t.name)).toEqual(["phone"]);
    expect(tokens.list()[0]!.lastUsedAt).not.toBeNull();
    tokens.revoke("phone");
    expect(tokens.verify(token)).toBeNull();
    expect(tokens.list()).toEqual([]);
  });

  test("names must be sane, unique, and not 'admin'", () => {
    tokens.create("laptop");
    expect(() => tokens.create("laptop")).toThrow("already exists");
    expect(() => tokens.create("admin")).toThrow("reserved");
    for (const bad of ["", "-x", "a b", "x".repeat(65), "a/b"]) expect(() => tokens.create(bad)).toThrow("token name");
    expect(() => tokens.revoke("nobody")).toThrow('no token is named "nobody"');
  });
});

test("constant-time comparison agrees with ===", () => {
  const samples = ["", "a", "ab", "atr_x", "atr_y", "atr_xy", "Ātr_x"];
  for (const a of samples) for (const b of samples) expect(constantTimeEquals(a, b)).toBe(a === b);
});

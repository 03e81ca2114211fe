import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../helpers/temp-dir.ts";
import { readCodexRateLimits, windowLabel } from "../../src/harness/codex-rate-limits.ts";
import { readCodexAccount } from "../../src/harness/codex-account.ts";

const NOW = new Date("2026-03-10T12:00:00.000Z");
const epochSeconds = (iso: string) => Date.parse(iso) / 1000;

let home: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  home = makeTempDir("atrium-codex-limits-");
});
afterEach(() => home.remove());

/** Writes a rollout the way Codex lays them out, optionally with a given modification time. */
function writeRollout(day: string, name: string, lines: string[], modified?: Date): string {
  const dir = join(home.path, "sessions", ...day.split("/"));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-${name}.jsonl`);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
  if (modified) utimesSync(path, modified, modified);
  return path;
}

function tokenCount(timestamp: string, rateLimits: unknown): string {
  const usage = { input_tokens: 100, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0, total_tokens: 110 };
  return JSON.stringify({
    timestamp,
    type: "event_msg",
    payload: { type: "token_count", info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 272000 }, rate_limits: rateLimits },
  });
}

function message(timestamp: string, text: string): string {
  return JSON.stringify({ timestamp, type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text }] } });
}

/** Rate limits as current Codex logs them (absolute `resets_at`, limit ids, credits, plan). */
function currentLimits(primaryUsed: number, options: { limitId?: string; plan?: string } = {}): unknown {
  return {
    limit_id: options.limitId ?? "codex",
    limit_name: null,
    primary: { used_percent: primaryUsed, window_minutes: 300, resets_at: epochSeconds("2026-03-10T14:00:00Z") },
    secondary: { used_percent: 31, window_minutes: 10080, resets_at: epochSeconds("2026-03-14T09:30:00Z") },
    credits: { has_credits: false, unlimited: false, balance: "0" },
    plan_type: options.plan ?? "plus",
  };
}

function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.c2lnbmF0dXJl`;
}

function writeAuth(idTokenClaims: Record<string, unknown>): void {
  const tokens = { id_token: fakeJwt(idTokenClaims), access_token: "secret-access", refresh_token: "secret-refresh", account_id: "acc-1" };
  writeFileSync(join(home.path, "auth.json"), JSON.stringify({ OPENAI_API_KEY: null, tokens, last_refresh: "2026-03-01T00:00:00Z" }));
}

describe("readCodexRateLimits", () => {
  test("reads the current format: absolute resets_at, credits and plan, windows labelled by duration", () => {
    writeRollout("2026/03/10", "2026-03-10T10-00-00-a", [
      message("2026-03-10T11:00:00.000Z", "hello"),
      tokenCount("2026-03-10T11:00:05.000Z", currentLimits(13)),
    ]);
    expect(readCodexRateLimits(home.path, NOW)).toEqual({
      windows: [
        { id: "primary", label: "5 hours", usedPercent: 13, durationMinutes: 300, resetsAt: "2026-03-10T14:00:00.000Z" },
        { id: "secondary", label: "Weekly", usedPercent: 31, durationMinutes: 10080, resetsAt: "2026-03-14T09:30:00.000Z" },
      ],
      credits: { hasCredits: false, unlimited: false, balance: "0" },
      plan: "plus",
      email: null,
      observedAt: "2026-03-10T11:00:05.000Z",
    });
  });

  test("reads the older resets_in_seconds relative to the line's time, not to now", () => {
    writeRollout("2026/03/10", "2026-03-10T09-00-00-a", [
      tokenCount("2026-03-10T10:00:00.000Z", {
        primary: { used_percent: 40.5, window_minutes: 300, resets_in_seconds: 3 * 3600 },
        secondary: { used_percent: 7, window_minutes: 10080, resets_in_seconds: 86400 },
      }),
    ]);
    const limits = readCodexRateLimits(home.path, NOW)!;
    expect(limits.windows).toEqual([
      { id: "primary", label: "5 hours", usedPercent: 40.5, durationMinutes: 300, resetsAt: "2026-03-10T13:00:00.000Z" },
      { id: "secondary", label: "Weekly", usedPercent: 7, durationMinutes: 10080, resetsAt: "2026-03-11T10:00:00.000Z" },
    ]);
    expect(limits.credits).toBeNull();
    expect(limits.plan).toBeNull();
  });

  test("reads the oldest flat fields (primary_used_percent …)", () => {
    writeRollout("2026/03/10", "2026-03-10T09-00-00-a", [
      tokenCount("2026-03-10T10:00:00.000Z", {
        primary_used_percent: 12.5,
        secondary_used_percent: 40,
        primary_to_secondary_ratio_percent: 75,
        primary_window_minutes: 300,
        secondary_window_minutes: 10080,
        primary_reset_after_seconds: 3 * 3600,
      }),
    ]);
    expect(readCodexRateLimits(home.path, NOW)!.windows).toEqual([
      { id: "primary", label: "5 hours", usedPercent: 12.5, durationMinutes: 300, resetsAt: "2026-03-10T13:00:00.000Z" },
      { id: "secondary", label: "Weekly", usedPercent: 40, durationMinutes: 10080, resetsAt: null },
    ]);
  });

  test("a window whose reset has passed is reported unused, with no known next reset", () => {
    writeRollout("2026/03/10", "2026-03-10T05-00-00-a", [
      tokenCount("2026-03-10T06:00:00.000Z", {
        primary: { used_percent: 100, window_minutes: 300, resets_at: epochSeconds("2026-03-10T08:00:00Z") },
        secondary: { used_percent: 60, window_minutes: 10080, resets_at: epochSeconds("2026-03-12T00:00:00Z") },
      }),
    ]);
    const limits = readCodexRateLimits(home.path, NOW)!;
    expect(limits.windows).toEqual([
      { id: "primary", label: "5 hours", usedPercent: 0, durationMinutes: 300, resetsAt: null },
      { id: "secondary", label: "Weekly", usedPercent: 60, durationMinutes: 10080, resetsAt: "2026-03-12T00:00:00.000Z" },
    ]);
    expect(limits.observedAt).toBe("2026-03-10T06:00:00.000Z");
  });

  test("the most recently written rollout wins, across day and month folders", () => {
    writeRollout("2026/02/28", "2026-02-28T10-00-00-old", [tokenCount("2026-02-28T10:00:00.000Z", currentLimits(90))], new Date("2026-02-28T10:00:00Z"));
    writeRollout("2026/03/01", "2026-03-01T08-00-00-new", [tokenCount("2026-03-01T08:00:00.000Z", currentLimits(20))], new Date("2026-03-01T08:00:00Z"));
    expect(readCodexRateLimits(home.path, NOW)!.windows[0]!.usedPercent).toBe(20);

    // A session started the day before but still running is newer than one of today's folder.
    writeRollout("2026/02/28", "2026-02-28T23-00-00-long", [tokenCount("2026-03-01T09:00:00.000Z", currentLimits(55))], new Date("2026-03-01T09:00:00Z"));
    expect(readCodexRateLimits(home.path, NOW)!.windows[0]!.usedPercent).toBe(55);
  });

  test("a newer rollout without limits falls back to an older one that has them", () => {
    writeRollout("2026/03/09", "2026-03-09T10-00-00-a", [tokenCount("2026-03-09T10:00:00.000Z", currentLimits(44))], new Date("2026-03-09T10:00:00Z"));
    writeRollout("2026/03/10", "2026-03-10T10-00-00-b", [message("2026-03-10T10:00:00.000Z", "no turn finished yet")], new Date("2026-03-10T10:00:00Z"));
    expect(readCodexRateLimits(home.path, NOW)!.windows[0]!.usedPercent).toBe(44);
  });

  test("token counts without limits, other limit buckets and a half-written last line are passed over", () => {
    writeRollout("2026/03/10", "2026-03-10T10-00-00-a", [
      tokenCount("2026-03-10T10:00:00.000Z", currentLimits(21)),
      message("2026-03-10T10:01:00.000Z", "working"),
      tokenCount("2026-03-10T10:02:00.000Z", null),
      tokenCount("2026-03-10T10:03:00.000Z", currentLimits(99, { limitId: "codex_bengalfox" })),
      tokenCount("2026-03-10T10:04:00.000Z", { primary: null, secondary: null, credits: null }),
      tokenCount("2026-03-10T10:05:00.000Z", currentLimits(77)).slice(0, 120),
    ]);
    const limits = readCodexRateLimits(home.path, NOW)!;
    expect(limits.windows[0]!.usedPercent).toBe(21);
    expect(limits.observedAt).toBe("2026-03-10T10:00:00.000Z");
  });

  test("malformed lines are skipped", () => {
    writeRollout("2026/03/10", "2026-03-10T10-00-00-a", [
      tokenCount("2026-03-10T10:00:00.000Z", currentLimits(5)),
      'not json at all, but mentions "token_count"',
      `["token_count"]`,
      JSON.stringify({ timestamp: "2026-03-10T10:01:00Z", type: "event_msg", payload: "token_count" }),
      tokenCount("2026-03-10T10:02:00.000Z", { primary: { used_percent: "high", window_minutes: 300 } }),
      tokenCount("2026-03-10T10:03:00.000Z", { primary: { used_percent: 50 } }),
      "",
      "{",
    ]);
    expect(readCodexRateLimits(home.path, NOW)!.windows[0]!.usedPercent).toBe(5);
  });

  test("a large rollout is read from its tail, across chunk boundaries and multi-byte text", () => {
    // Filler that would be parsed if it were reached: token counts without limits.
    const filler = `${tokenCount("2026-03-10T09:00:00.000Z", null)}\n`;
    // A multi-byte plan at the end of the limits line, so a chunk boundary can cut one of its characters.
    const plan = `plüs-${"ü".repeat(3000)}`;
    const limitsLine = `${tokenCount("2026-03-10T10:59:00.000Z", currentLimits(63, { plan }))}\n`;
    expect(limitsLine.endsWith(`${"ü".repeat(10)}"}}}\n`)).toBe(true);
    // After the limits come ~700 KB of output, then padding to an exact size: the boundary of the
    // third 256 KiB chunk from the end falls 1001 bytes before the limits line's closing `"}}}`, mid-ü.
    const chunk = 256 * 1024;
    const afterBytes = 3 * chunk - 1001 - 5;
    const chatter = `${message("2026-03-10T11:00:00.000Z", "résumé — ünïcödé ✓ ".repeat(40))}\n`.repeat(500);
    const paddingBytes = afterBytes - Buffer.byteLength(chatter) - Buffer.byteLength(`${message("2026-03-10T11:01:00.000Z", "")}\n`);
    const after = `${chatter}${message("2026-03-10T11:01:00.000Z", "a".repeat(paddingBytes))}\n`;
    expect(Buffer.byteLength(after)).toBe(afterBytes);
    const dir = join(home.path, "sessions", "2026", "03", "10");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "rollout-2026-03-10T09-00-00-big.jsonl"), filler.repeat(Math.ceil((24 * 1024 * 1024) / filler.length)) + limitsLine + after);

    // What it reads is counted, not timed: a busy machine makes even the tail slow now and then.
    const reads = spyOn(fs, "readSync");
    let limits: ReturnType<typeof readCodexRateLimits>;
    let bytesRead = 0;
    try {
      limits = readCodexRateLimits(home.path, NOW);
      for (const result of reads.mock.results) if (result.type === "return") bytesRead += Number(result.value);
    } finally {
      reads.mockRestore();
    }
    expect(limits!.windows[0]!.usedPercent).toBe(63);
    expect(limits!.plan).toBe(plan);
    // The chunks up to the limits line, a megabyte at most, not the 24 MB before them.
    expect(bytesRead).toBeGreaterThan(afterBytes);
    expect(bytesRead).toBeLessThanOrEqual(4 * chunk);
  });

  test("limits far from a rollout's end are not searched for", () => {
    const chatter = `${message("2026-03-10T11:00:00.000Z", "x".repeat(1000))}\n`;
    const body = `${tokenCount("2026-03-10T09:00:00.000Z", currentLimits(10))}\n${chatter.repeat(Math.ceil((6 * 1024 * 1024) / chatter.length))}`;
    const dir = join(home.path, "sessions", "2026", "03", "10");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "rollout-2026-03-10T09-00-00-long.jsonl"), body);
    expect(readCodexRateLimits(home.path, NOW)).toBeUndefined();
  });

  test("no sessions folder, or rollouts without limits (an API key login), give undefined", () => {
    expect(readCodexRateLimits(home.path, NOW)).toBeUndefined();
    expect(readCodexRateLimits(join(home.path, "missing"), NOW)).toBeUndefined();
    mkdirSync(join(home.path, "sessions", "2026", "03", "10"), { recursive: true });
    expect(readCodexRateLimits(home.path, NOW)).toBeUndefined();
    writeRollout("2026/03/10", "2026-03-10T10-00-00-a", [message("2026-03-10T10:00:00.000Z", "hi"), tokenCount("2026-03-10T10:00:01.000Z", null)]);
    expect(readCodexRateLimits(home.path, NOW)).toBeUndefined();
  });

  test("email and plan come from the login's id token; the plan logged with the limits wins", () => {
    writeAuth({ email: "dev@example.com", "https://api.openai.com/auth": { chatgpt_plan_type: "pro", chatgpt_account_id: "acc-1" } });
    writeRollout(
      "2026/03/10",
      "2026-03-10T10-00-00-a",
      [tokenCount("2026-03-10T10:00:00.000Z", { primary: { used_percent: 1, window_minutes: 300, resets_at: epochSeconds("2026-03-10T14:00:00Z") } })],
      new Date("2026-03-10T10:00:00Z"),
    );
    const fromLogin = readCodexRateLimits(home.path, NOW)!;
    expect(fromLogin).toMatchObject({ email: "dev@example.com", plan: "pro" });
    expect(JSON.stringify(fromLogin)).not.toContain("secret");

    writeRollout(
      "2026/03/10",
      "2026-03-10T11-00-00-b",
      [tokenCount("2026-03-10T11:00:00.000Z", currentLimits(2, { plan: "team" }))],
      new Date("2026-03-10T11:00:00Z"),
    );
    expect(readCodexRateLimits(home.path, NOW)).toMatchObject({ email: "dev@example.com", plan: "team" });
  });
});

describe("readCodexAccount", () => {
  test("reads email (top-level or profile claim) and plan, and nothing when there is no ChatGPT login", () => {
    expect(readCodexAccount(home.path)).toBeUndefined();

    writeAuth({ "https://api.openai.com/profile": { email: "profile@example.com" }, "https://api.openai.com/auth": { chatgpt_plan_type: "plus" } });
    expect(readCodexAccount(home.path)).toEqual({ email: "profile@example.com", plan: "plus" });

    writeAuth({ sub: "user-1" });
    expect(readCodexAccount(home.path)).toEqual({ email: null, plan: null });

    writeFileSync(join(home.path, "auth.json"), JSON.stringify({ OPENAI_API_KEY: "sk-test", tokens: null }));
    expect(readCodexAccount(home.path)).toBeUndefined();

    writeFileSync(join(home.path, "auth.json"), JSON.stringify({ tokens: { id_token: "not-a-jwt" } }));
    expect(readCodexAccount(home.path)).toBeUndefined();

    writeFileSync(join(home.path, "auth.json"), "{ half written");
    expect(readCodexAccount(home.path)).toBeUndefined();
  });
});

describe("windowLabel", () => {
  test("names windows by their duration", () => {
    expect(windowLabel(300)).toBe("5 hours");
    expect(windowLabel(60)).toBe("1 hour");
    expect(windowLabel(10080)).toBe("Weekly");
    expect(windowLabel(1440)).toBe("1 day");
    expect(windowLabel(43200)).toBe("30 days");
    expect(windowLabel(90)).toBe("90 minutes");
  });
});

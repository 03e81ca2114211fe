import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { readCodexAccount } from "./codex-account.ts";

/**
 * Codex's account rate limits as it last logged them. Codex writes the limits the backend sends with
 * every model response into its session rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`),
 * as `event_msg` lines of type `token_count`, so reading them costs no request and no token.
 */
export interface CodexRateLimits {
  windows: CodexRateLimitWindow[];
  credits: CodexCredits | null;
  /** The ChatGPT plan (`plus`, `pro`, …): the one logged with the limits, else the login's. */
  plan: string | null;
  email: string | null;
  /** When Codex logged these limits, which is how old they are. */
  observedAt: string;
}

export interface CodexRateLimitWindow {
  /** The slot Codex reported it in. Which slot holds which window varies by plan, so use the duration. */
  id: WindowSlot;
  label: string;
  usedPercent: number;
  durationMinutes: number;
  /**
   * Null when the window has reset since it was logged (its usage is then 0): Codex windows start at
   * the first use after a reset, so when the next one ends is not known until Codex is used again.
   * Also null when the log said nothing about the reset.
   */
  resetsAt: string | null;
}

export interface CodexCredits {
  hasCredits: boolean;
  unlimited: boolean;
  balance: string | null;
}

type WindowSlot = "primary" | "secondary";
const WINDOW_SLOTS: readonly WindowSlot[] = ["primary", "secondary"];

/** Newest day folders whose rollouts are compared by mtime: a session keeps writing to the folder of the day it started. */
const DAY_DIRS_CONSIDERED = 7;
/** Rollouts read before giving up; with an API key login no rollout has limits, so this bounds the cost. */
const ROLLOUTS_READ = 4;
const TAIL_CHUNK_BYTES = 256 * 1024;
/** Limits are logged at the end of every turn, so they are near a rollout's end or not worth the read. */
const MAX_TAIL_BYTES = 4 * 1024 * 1024;
/** The shared Codex pool. Other limit ids are model-specific buckets (`codex_bengalfox` for GPT-5.3-Codex-Spark). */
const MAIN_LIMIT_ID = "codex";
const MINUTES_PER_DAY = 24 * 60;
const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;

/** Undefined when no recent rollout has a line with limits (Codex not used yet, or used with an API key). */
export function readCodexRateLimits(codexHome: string, now: Date): CodexRateLimits | undefined {
  for (const rollout of newestRollouts(join(codexHome, "sessions")).slice(0, ROLLOUTS_READ)) {
    const logged = newestLimitsIn(rollout);
    if (!logged) continue;
    const account = readCodexAccount(codexHome);
    return {
      windows: logged.windows.map((window) => windowAsOf(window, now)),
      credits: logged.credits,
      plan: logged.plan ?? account?.plan ?? null,
      email: account?.email ?? null,
      observedAt: logged.observedAt.toISOString(),
    };
  }
  return undefined;
}

/** "5 hours", "Weekly", "1 day", "90 minutes": what a window of that many minutes is called. */
export function windowLabel(durationMinutes: number): string {
  const minutes = Math.round(durationMinutes);
  if (minutes === MINUTES_PER_WEEK) return "Weekly";
  if (minutes % MINUTES_PER_DAY === 0) return countOf(minutes / MINUTES_PER_DAY, "day");
  if (minutes % 60 === 0) return countOf(minutes / 60, "hour");
  return countOf(minutes, "minute");
}

const countOf = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;

interface LoggedLimits {
  windows: LoggedWindow[];
  credits: CodexCredits | null;
  plan: string | null;
  observedAt: Date;
}

interface LoggedWindow {
  id: WindowSlot;
  usedPercent: number;
  durationMinutes: number;
  resetsAt: Date | null;
}

/**
 * A logged window as it stands now. One whose reset has passed is reported unused: no newer line
 * logged usage in it, and the log's old percentage would otherwise block a window that has refilled.
 */
function windowAsOf(window: LoggedWindow, now: Date): CodexRateLimitWindow {
  const hasReset = window.resetsAt !== null && window.resetsAt.getTime() <= now.getTime();
  return {
    id: window.id,
    label: windowLabel(window.durationMinutes),
    usedPercent: hasReset ? 0 : window.usedPercent,
    durationMinutes: window.durationMinutes,
    resetsAt: hasReset || window.resetsAt === null ? null : window.resetsAt.toISOString(),
  };
}

interface Rollout {
  path: string;
  modifiedMs: number;
}

/** Rollouts of the newest day folders, most recently written first. */
function newestRollouts(sessionsDir: string): Rollout[] {
  return newestDayDirs(sessionsDir)
    .flatMap(rolloutsIn)
    .sort((a, b) => b.modifiedMs - a.modifiedMs);
}

/** Walks year, month and day folders newest first by name, stopping after enough days. */
function newestDayDirs(sessionsDir: string): string[] {
  const days: string[] = [];
  for (const year of numberedDirsNewestFirst(sessionsDir)) {
    for (const month of numberedDirsNewestFirst(year)) {
      for (const day of numberedDirsNewestFirst(month)) {
        days.push(day);
        if (days.length === DAY_DIRS_CONSIDERED) return days;
      }
    }
  }
  return days;
}

function numberedDirsNewestFirst(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && /^\d+$/.test(entry.name))
      .map((entry) => entry.name)
      .sort((a, b) => Number(b) - Number(a))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

function rolloutsIn(dayDir: string): Rollout[] {
  let names: string[];
  try {
    names = readdirSync(dayDir).filter((name) => name.startsWith("rollout-") && name.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dayDir, name);
    try {
      return [{ path, modifiedMs: statSync(path).mtimeMs }];
    } catch {
      return []; // Deleted since it was listed.
    }
  });
}

/** The last line of the rollout that carries limits, reading the file from its end. */
function newestLimitsIn(rollout: Rollout): LoggedLimits | undefined {
  let fd: number;
  try {
    fd = openSync(rollout.path, "r");
  } catch {
    return undefined;
  }
  try {
    for (const text of completeLinesFromEnd(fd)) {
      const lines = text.split("\n");
      for (let index = lines.length - 1; index >= 0; index--) {
        const limits = limitsInLine(lines[index]!, rollout.modifiedMs);
        if (limits) return limits;
      }
    }
    return undefined;
  } catch {
    return undefined; // Truncated or replaced while being read: the next rollout may do.
  } finally {
    closeSync(fd);
  }
}

/**
 * The file's text in chunks from its end backwards, each holding only whole lines: the line a chunk
 * cuts is carried into the next chunk (as bytes, so a cut character is not garbled). Stops at
 * MAX_TAIL_BYTES, dropping the line cut there.
 */
function* completeLinesFromEnd(fd: number): Generator<string> {
  let end = fstatSync(fd).size;
  const floor = Math.max(0, end - MAX_TAIL_BYTES);
  let cutLine = Buffer.alloc(0);
  while (end > floor) {
    const start = Math.max(floor, end - TAIL_CHUNK_BYTES);
    const chunk = Buffer.alloc(end - start);
    const bytesRead = readSync(fd, chunk, 0, chunk.length, start);
    const region = Buffer.concat([chunk.subarray(0, bytesRead), cutLine]);
    if (start === 0) {
      yield region.toString("utf8");
      return;
    }
    const firstBreak = region.indexOf(0x0a);
    if (firstBreak !== -1) yield region.subarray(firstBreak + 1).toString("utf8");
    cutLine = firstBreak === -1 ? region : region.subarray(0, firstBreak);
    end = start;
  }
}

/** The limits of one rollout line, if it is a token count that has them; anything malformed is skipped. */
function limitsInLine(line: string, fileModifiedMs: number): LoggedLimits | undefined {
  // Most lines are messages and tool output; only token counts carry limits, so the rest is not parsed.
  if (!line.includes('"token_count"')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const entry = asRecord(parsed);
  const payload = asRecord(entry?.payload);
  if (entry?.type !== "event_msg" || payload?.type !== "token_count") return undefined;
  const snapshot = asRecord(payload.rate_limits);
  if (!snapshot || !isMainLimit(snapshot)) return undefined;
  const observedAt = timeOf(entry.timestamp) ?? new Date(fileModifiedMs);
  const windows = WINDOW_SLOTS.flatMap((slot) => windowIn(snapshot, slot, observedAt) ?? []);
  const credits = creditsIn(snapshot.credits);
  if (windows.length === 0 && !credits) return undefined;
  return { windows, credits, plan: nonEmptyString(snapshot.plan_type) ?? null, observedAt };
}

/** Snapshots before limit ids existed were all of the main pool. */
function isMainLimit(snapshot: Record<string, unknown>): boolean {
  return typeof snapshot.limit_id !== "string" || snapshot.limit_id === MAIN_LIMIT_ID;
}

/**
 * One window of a snapshot. Codex has logged it as `{primary: {used_percent, window_minutes, resets_at}}`
 * (absolute epoch seconds), before that with `resets_in_seconds` (relative to the line, so the reset
 * time is taken from the line's timestamp and does not drift), and before that as flat
 * `primary_used_percent` / `primary_window_minutes` / `primary_reset_after_seconds` fields.
 */
function windowIn(snapshot: Record<string, unknown>, slot: WindowSlot, observedAt: Date): LoggedWindow | undefined {
  const raw = asRecord(snapshot[slot]) ?? flatWindowIn(snapshot, slot);
  const usedPercent = finiteNumber(raw?.used_percent);
  const durationMinutes = finiteNumber(raw?.window_minutes);
  if (!raw || usedPercent === undefined || durationMinutes === undefined || durationMinutes <= 0) return undefined;
  return {
    id: slot,
    usedPercent: Math.min(100, Math.max(0, usedPercent)),
    durationMinutes,
    resetsAt: resetTimeOf(raw, observedAt),
  };
}

function flatWindowIn(snapshot: Record<string, unknown>, slot: WindowSlot): Record<string, unknown> | undefined {
  if (snapshot[`${slot}_used_percent`] === undefined) return undefined;
  return {
    used_percent: snapshot[`${slot}_used_percent`],
    window_minutes: snapshot[`${slot}_window_minutes`],
    resets_in_seconds: snapshot[`${slot}_reset_after_seconds`],
  };
}

function resetTimeOf(window: Record<string, unknown>, observedAt: Date): Date | null {
  const resetsAtSeconds = finiteNumber(window.resets_at);
  if (resetsAtSeconds !== undefined) return new Date(resetsAtSeconds * 1000);
  const resetsAtText = timeOf(window.resets_at);
  if (resetsAtText) return resetsAtText;
  const resetsInSeconds = finiteNumber(window.resets_in_seconds);
  return resetsInSeconds === undefined ? null : new Date(observedAt.getTime() + resetsInSeconds * 1000);
}

function creditsIn(value: unknown): CodexCredits | null {
  const credits = asRecord(value);
  if (!credits || typeof credits.has_credits !== "boolean" || typeof credits.unlimited !== "boolean") return null;
  const balance = typeof credits.balance === "number" ? String(credits.balance) : nonEmptyString(credits.balance);
  return { hasCredits: credits.has_credits, unlimited: credits.unlimited, balance: balance ?? null };
}

function timeOf(value: unknown): Date | undefined {
  if (typeof value !== "string") return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** Rotated log files kept, so that a burst of lines cannot erase the start-up ones at once. */
const KEPT_FILES = 5;

/** Access tokens have a recognisable prefix, so they can be scrubbed wherever they appear. */
const TOKEN_PATTERN = /atr_[A-Za-z0-9_-]{16,}/g;
const SECRET_FIELD = /token|authorization|secret|password|api[_-]?key/i;

export function redact(value: unknown, key = ""): unknown {
  if (SECRET_FIELD.test(key) && value !== undefined && value !== null && typeof value !== "number") return "[redacted]";
  if (typeof value === "string") return value.replace(TOKEN_PATTERN, "atr_[redacted]");
  if (Array.isArray(value)) return value.map((item) => redact(item));
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: redact(value.stack) };
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  }
  return value;
}

export interface Logger {
  /** Whether lines at `level` are written, so callers can skip work for lines nobody keeps. */
  enabled(level: LogLevel): boolean;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface FileLoggerOptions {
  file: string;
  level: LogLevel;
  /** Also print a short human line to stderr (when attached to a terminal). */
  echoToStderr: boolean;
  /** Rotate past this size: `<file>` becomes `<file>.1`, `.1` becomes `.2`, up to `.5` (KEPT_FILES). */
  maxBytes: number;
  now?: () => Date;
}

/**
 * Structured JSON lines in the data dir's logs folder. Writes are synchronous appends: log lines are
 * rare (requests log at debug), and a line written before a crash is the one you need afterwards.
 */
export class FileLogger implements Logger {
  private bytesSinceCheck = 0;
  /** Closed with its server: a line that comes later (a request's log after the stop) is not written. */
  private closed = false;

  constructor(private readonly options: FileLoggerOptions) {
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
  }

  enabled(level: LogLevel): boolean {
    return levelRank[level] >= levelRank[this.options.level];
  }

  debug(message: string, fields?: LogFields): void {
    this.write("debug", message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write("info", message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.write("warn", message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.write("error", message, fields);
  }

  /** The server has stopped: later lines go nowhere (its data dir may be gone by then). */
  close(): void {
    this.closed = true;
  }

  private write(level: LogLevel, message: string, fields?: LogFields): void {
    if (this.closed || !this.enabled(level)) return;
    const time = (this.options.now?.() ?? new Date()).toISOString();
    const entry = { time, level, msg: redact(message), ...(fields ? (redact(fields) as LogFields) : {}) };
    const line = `${JSON.stringify(entry)}\n`;
    try {
      this.rotateIfNeeded(line.length);
      appendFileSync(this.options.file, line, { mode: 0o600 });
    } catch (error) {
      this.reportWriteFailure(error);
    }
    if (this.options.echoToStderr) {
      process.stderr.write(`${time} ${level.toUpperCase().padEnd(5)} ${entry.msg}${fields ? ` ${JSON.stringify(redact(fields))}` : ""}\n`);
    }
  }

  private writeFailureReported = false;

  /** Logging must never take the server down (disk full, folder removed): say so once on stderr. */
  private reportWriteFailure(error: unknown): void {
    if (this.writeFailureReported) return;
    this.writeFailureReported = true;
    process.stderr.write(`atrium: cannot write the log ${this.options.file}: ${(error as Error).message}\n`);
  }

  private rotateIfNeeded(incoming: number): void {
    this.bytesSinceCheck += incoming;
    if (this.bytesSinceCheck < 64 * 1024) return;
    this.bytesSinceCheck = 0;
    const { file, maxBytes } = this.options;
    if (!existsSync(file) || statSync(file).size <= maxBytes) return;
    for (let n = KEPT_FILES - 1; n >= 1; n--) {
      if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
    }
    renameSync(file, `${file}.1`);
  }
}

export function parseLogLevel(value: string | undefined, fallback: LogLevel = "info"): LogLevel {
  return value && value in levelRank ? (value as LogLevel) : fallback;
}

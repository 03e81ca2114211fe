import { InvalidInputError } from "../errors.ts";
import type { TimeZone, WallTime } from "./time-zone.ts";

/**
 * A five-field cron expression (minute hour day-of-month month day-of-week), as Vixie cron reads it:
 * `*`, numbers, lists (`1,15`), ranges (`1-5`), steps (`*\/15`, `0-30/10`, `5/20`), month and day names
 * (`JAN`, `MON-FRI`), Sunday as 0 or 7, and the shorthands `@hourly`, `@daily` (`@midnight`), `@weekly`,
 * `@monthly`, `@yearly` (`@annually`). When both day fields are restricted (neither starts with `*`),
 * a day matches either. Times are read on the wall clock of a time zone (TimeZone says what a time
 * that a daylight-saving change skips or repeats becomes).
 */
export interface CronExpression {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 (Sunday) to 6. */
  daysOfWeek: ReadonlySet<number>;
  daysOfMonthRestricted: boolean;
  daysOfWeekRestricted: boolean;
}

const SHORTHANDS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Names for the values from `min` on. */
  names?: string[];
}

const FIELDS: FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES },
  { name: "day of week", min: 0, max: 7, names: DAY_NAMES },
];

/** Reads an expression; a malformed one is refused (400) naming the field and what is wrong. */
export function parseCron(text: string): CronExpression {
  const expanded = SHORTHANDS[text.trim().toLowerCase()] ?? text.trim();
  const fields = expanded.split(/\s+/);
  if (fields.length !== 5) {
    throw new InvalidInputError(`cron: "${text}" has ${fields.length} fields; it needs 5 (minute hour day-of-month month day-of-week)`);
  }
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = fields.map((field, index) => parseField(field, FIELDS[index]!));
  return {
    minutes: minutes!,
    hours: hours!,
    daysOfMonth: daysOfMonth!,
    months: months!,
    // 7 is Sunday too.
    daysOfWeek: new Set([...daysOfWeek!].map((day) => day % 7)),
    daysOfMonthRestricted: !fields[2]!.startsWith("*"),
    daysOfWeekRestricted: !fields[4]!.startsWith("*"),
  };
}

function parseField(field: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  const refuse = (why: string): never => {
    throw new InvalidInputError(`cron: the ${spec.name} field "${field}" ${why}`);
  };
  const value = (token: string): number => {
    const named = spec.names?.indexOf(token.toUpperCase()) ?? -1;
    if (named >= 0) return spec.min + named;
    if (!/^\d{1,2}$/.test(token)) return refuse(`has "${token}", which is not a number${spec.names ? " or a name" : ""}`);
    const number = Number(token);
    if (number < spec.min || number > spec.max) refuse(`has ${number}, outside ${spec.min}–${spec.max}`);
    return number;
  };
  for (const item of field.split(",")) {
    const [range, stepText, extra] = item.split("/");
    if (extra !== undefined || range === undefined || range === "") refuse(`has "${item}", which is not a value, range or step`);
    const step = stepText === undefined ? 1 : /^\d{1,2}$/.test(stepText) && Number(stepText) > 0 ? Number(stepText) : refuse(`has the step "${stepText}"`);
    let from: number;
    let to: number;
    if (range === "*") [from, to] = [spec.min, spec.max];
    else if (range!.includes("-")) {
      const [start, end, more] = range!.split("-");
      if (more !== undefined || !start || !end) refuse(`has the range "${range}"`);
      [from, to] = [value(start!), value(end!)];
      if (from > to) refuse(`has the range ${range}, which runs backwards`);
    } else {
      from = value(range!);
      // `5/20` is 5, 25, 45: from the value to the field's end.
      to = stepText === undefined ? from : spec.max;
    }
    for (let number = from; number <= to; number += step) values.add(number);
  }
  return values;
}

/** How far ahead a next run is looked for: every day of eight years covers each leap day and weekday. */
const SEARCH_DAYS = 8 * 366;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The first time after `afterMs` the expression matches on the zone's wall clock; null when it never does (`0 0 31 2 *`). */
export function nextCronTime(cron: CronExpression, zone: TimeZone, afterMs: number): number | null {
  const start = zone.wallAt(afterMs);
  const startDay = Date.UTC(start.year, start.month - 1, start.day);
  for (let dayIndex = 0; dayIndex < SEARCH_DAYS; dayIndex++) {
    // A calendar day, walked in UTC arithmetic: no zone's rules between midnight and midnight.
    const date = new Date(startDay + dayIndex * DAY_MS);
    const day = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
    if (!cron.months.has(day.month) || !dayMatches(cron, day.day, date.getUTCDay())) continue;
    const found = firstOfDay(cron, zone, day, afterMs);
    if (found !== null) return found;
  }
  return null;
}

function dayMatches(cron: CronExpression, dayOfMonth: number, dayOfWeek: number): boolean {
  const byMonth = cron.daysOfMonth.has(dayOfMonth);
  const byWeek = cron.daysOfWeek.has(dayOfWeek);
  if (cron.daysOfMonthRestricted && cron.daysOfWeekRestricted) return byMonth || byWeek;
  return byMonth && byWeek;
}

/** The earliest matching instant after `afterMs` among the day's matching wall times. */
function firstOfDay(cron: CronExpression, zone: TimeZone, day: Omit<WallTime, "hour" | "minute">, afterMs: number): number | null {
  const midnight = Date.UTC(day.year, day.month - 1, day.day);
  // Offsets range from -12 h to +14 h: these instants lie before and after the day wherever it is.
  const offsetBefore = zone.offsetAt(midnight - 14 * HOUR_MS);
  const offsetAfter = zone.offsetAt(midnight + DAY_MS + 12 * HOUR_MS);
  const hours = [...cron.hours].sort((a, b) => a - b);
  const minutes = [...cron.minutes].sort((a, b) => a - b);
  let best: number | null = null;
  for (const hour of hours) {
    for (const minute of minutes) {
      const wall = { ...day, hour, minute };
      const instant =
        offsetBefore === offsetAfter ? midnight + hour * HOUR_MS + minute * 60_000 - offsetBefore : zone.instantOf(wall, offsetBefore, offsetAfter);
      if (instant <= afterMs) continue;
      // On a day without a change the wall times come in the order of their instants: the first one is it.
      if (offsetBefore === offsetAfter) return instant;
      if (best === null || instant < best) best = instant;
    }
  }
  return best;
}

import { describe, expect, test } from "bun:test";
import { nextCronTime, parseCron } from "../../src/schedules/cron.ts";
import { TimeZone } from "../../src/schedules/time-zone.ts";
import { InvalidInputError } from "../../src/errors.ts";

const utc = new TimeZone("UTC");
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The next `count` times after `from`, each found after the one before. */
function runs(expression: string, zone: TimeZone, from: string, count: number): Array<string | null> {
  const cron = parseCron(expression);
  const found: Array<string | null> = [];
  let after = at(from);
  for (let index = 0; index < count; index++) {
    const next = nextCronTime(cron, zone, after);
    found.push(iso(next));
    if (next === null) break;
    after = next;
  }
  return found;
}

describe("cron fields", () => {
  test("stars, lists, ranges and steps", () => {
    const cron = parseCron("*/15 9-17/4 1,15 * MON-FRI");
    expect([...cron.minutes]).toEqual([0, 15, 30, 45]);
    expect([...cron.hours]).toEqual([9, 13, 17]);
    expect([...cron.daysOfMonth]).toEqual([1, 15]);
    expect(cron.months.size).toBe(12);
    expect([...cron.daysOfWeek]).toEqual([1, 2, 3, 4, 5]);
    expect([...parseCron("5/20 0 * jan-mar,dec sun,7").minutes]).toEqual([5, 25, 45]);
    expect([...parseCron("5/20 0 * jan-mar,dec sun,7").months]).toEqual([1, 2, 3, 12]);
    // Sunday is 0 or 7.
    expect([...parseCron("0 0 * * 7").daysOfWeek]).toEqual([0]);
    expect(parseCron("@daily")).toEqual(parseCron("0 0 * * *"));
    expect(parseCron("@hourly")).toEqual(parseCron("0 * * * *"));
    expect(parseCron("@weekly")).toEqual(parseCron("0 0 * * 0"));
  });

  test("malformed expressions are refused, naming the field", () => {
    const refusal = (expression: string) => {
      try {
        parseCron(expression);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidInputError);
        return (error as Error).message;
      }
      throw new Error(`${expression} was accepted`);
    };
    expect(refusal("* * * *")).toContain("has 4 fields; it needs 5");
    expect(refusal("* * * * * *")).toContain("has 6 fields");
    expect(refusal("60 * * * *")).toBe('cron: the minute field "60" has 60, outside 0–59');
    expect(refusal("* 24 * * *")).toContain("the hour field");
    expect(refusal("* * 0 * *")).toContain("the day of month field");
    expect(refusal("* * * 13 *")).toContain("the month field");
    expect(refusal("* * * * 8")).toContain("the day of week field");
    expect(refusal("*/0 * * * *")).toContain('has the step "0"');
    expect(refusal("5-1 * * * *")).toContain("runs backwards");
    expect(refusal("a * * * *")).toContain('"a", which is not a number');
    expect(refusal("1,,2 * * * *")).toContain("not a value, range or step");
    expect(refusal("1/2/3 * * * *")).toContain("not a value, range or step");
    expect(refusal("* * * FOO *")).toContain("not a number or a name");
    expect(refusal("@often")).toContain("has 1 fields");
  });
});

describe("next run times", () => {
  test("in UTC: every 15 minutes, weekdays, and the first of the month", () => {
    expect(runs("*/15 * * * *", utc, "2026-01-01T00:07:30Z", 3)).toEqual(["2026-01-01T00:15:00.000Z", "2026-01-01T00:30:00.000Z", "2026-01-01T00:45:00.000Z"]);
    // 2026-01-02 is a Friday: the next weekday 09:00 after it is Monday the 5th.
    expect(runs("0 9 * * MON-FRI", utc, "2026-01-02T09:00:00Z", 2)).toEqual(["2026-01-05T09:00:00.000Z", "2026-01-06T09:00:00.000Z"]);
    expect(runs("0 0 1 * *", utc, "2026-01-15T00:00:00Z", 2)).toEqual(["2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"]);
  });

  test("a time exactly now is not next: the next is after it", () => {
    expect(runs("30 12 * * *", utc, "2026-01-01T12:30:00Z", 1)).toEqual(["2026-01-02T12:30:00.000Z"]);
  });

  test("both day fields restricted: either matches; one restricted: that one", () => {
    // The 13th, or any Friday (2026-02-06 is a Friday).
    expect(runs("0 0 13 * FRI", utc, "2026-02-01T00:00:00Z", 3)).toEqual(["2026-02-06T00:00:00.000Z", "2026-02-13T00:00:00.000Z", "2026-02-20T00:00:00.000Z"]);
    // A day-of-week field starting with * leaves the day of month alone.
    expect(runs("0 0 13 * */1", utc, "2026-02-01T00:00:00Z", 1)).toEqual(["2026-02-13T00:00:00.000Z"]);
  });

  test("leap days, and an expression that never matches", () => {
    expect(runs("0 12 29 2 *", utc, "2026-03-01T00:00:00Z", 2)).toEqual(["2028-02-29T12:00:00.000Z", "2032-02-29T12:00:00.000Z"]);
    expect(runs("0 0 31 2 *", utc, "2026-01-01T00:00:00Z", 1)).toEqual([null]);
  });

  test("on a zone's wall clock, across midnight in UTC", () => {
    const tokyo = new TimeZone("Asia/Tokyo");
    // 09:00 in Tokyo is 00:00 UTC; 2026-01-01 00:00 UTC is 09:00 there, so the next is a day on.
    expect(runs("0 9 * * *", tokyo, "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-02T00:00:00.000Z"]);
    const kolkata = new TimeZone("Asia/Kolkata");
    expect(runs("0 0 * * *", kolkata, "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-01T18:30:00.000Z"]);
  });

  test("daylight saving in Europe/Berlin: a skipped time runs an hour on, a repeated time once, daily times keep their wall time", () => {
    const berlin = new TimeZone("Europe/Berlin");
    // 2026-03-29: 02:00 CET becomes 03:00 CEST. 02:30 does not exist: it runs at 03:30 CEST (01:30 UTC).
    expect(runs("30 2 * * *", berlin, "2026-03-28T00:00:00Z", 3)).toEqual(["2026-03-28T01:30:00.000Z", "2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"]);
    // Hourly on the spring day: 01:00 CET, then 03:00 CEST (02:00 runs at 03:00 CEST too: one run).
    expect(runs("0 * * * *", berlin, "2026-03-28T23:30:00Z", 3)).toEqual(["2026-03-29T00:00:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z"]);
    // 2026-10-25: 03:00 CEST becomes 02:00 CET. 02:30 happens twice: it runs the first time only.
    expect(runs("30 2 * * *", berlin, "2026-10-24T12:00:00Z", 2)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
    // Every 30 minutes through the repeated hour: its wall times run once each, in order.
    expect(runs("*/30 * * * *", berlin, "2026-10-24T23:45:00Z", 5)).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T02:00:00.000Z", // 03:00 CET (02:00 and 02:30 CET were run as CEST)
      "2026-10-25T02:30:00.000Z",
      "2026-10-25T03:00:00.000Z",
    ]);
    // A daily 09:00 is 08:00 UTC in winter and 07:00 UTC in summer.
    expect(runs("0 9 * * *", berlin, "2026-03-28T12:00:00Z", 2)).toEqual(["2026-03-29T07:00:00.000Z", "2026-03-30T07:00:00.000Z"]);
  });

  test("daylight saving in America/New_York", () => {
    const newYork = new TimeZone("America/New_York");
    // 2026-03-08: 02:00 EST becomes 03:00 EDT; 2026-11-01: 02:00 EDT becomes 01:00 EST.
    expect(runs("15 2 * * *", newYork, "2026-03-07T12:00:00Z", 2)).toEqual(["2026-03-08T07:15:00.000Z", "2026-03-09T06:15:00.000Z"]);
    expect(runs("30 1 * * *", newYork, "2026-10-31T12:00:00Z", 2)).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
  });
});

describe("time zones", () => {
  test("IANA names are checked and spelled canonically", () => {
    expect(new TimeZone("utc").canonicalName).toBe("UTC");
    expect(new TimeZone("europe/berlin").canonicalName).toBe("Europe/Berlin");
    expect(() => new TimeZone("Mars/Olympus")).toThrow('timezone: "Mars/Olympus" is not an IANA time zone');
  });
});

import { InvalidInputError } from "../errors.ts";

/** A calendar date and a time of day, as a clock on the wall shows it (no zone). */
export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** A wall time as milliseconds, read as if it were UTC: wall arithmetic without any zone's rules. */
export const wallMs = (wall: WallTime): number => Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);

/**
 * An IANA time zone (`Europe/Berlin`, `UTC`) through Intl: the offset it has at an instant, and the
 * instant a wall time happens at, with its daylight-saving changes.
 */
export class TimeZone {
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    try {
      this.format = new Intl.DateTimeFormat("en-US", {
        timeZone: name,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw new InvalidInputError(`timezone: "${name}" is not an IANA time zone (such as UTC or Europe/Berlin)`);
    }
  }

  /** The zone's canonical spelling (`utc` → `UTC`). */
  get canonicalName(): string {
    return this.format.resolvedOptions().timeZone;
  }

  /** The wall time at an instant, to the minute. */
  wallAt(instantMs: number): WallTime {
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(instantMs)) if (part.type !== "literal") parts[part.type] = Number(part.value);
    return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute! };
  }

  /** How far the zone's clocks are ahead of UTC at an instant (a whole number of minutes, in ms). */
  offsetAt(instantMs: number): number {
    const minute = Math.floor(instantMs / 60_000) * 60_000;
    return wallMs(this.wallAt(minute)) - minute;
  }

  /**
   * The instant a wall time happens at, given the offsets before and after a change of the zone's
   * clocks near it. A time that happens twice (clocks set back) is its first occurrence; a time that
   * never happens (clocks set forward) is moved on by the gap, as if the clocks had not jumped
   * (02:30 where 02:00 becomes 03:00 is 03:30).
   */
  instantOf(wall: WallTime, offsetBefore: number, offsetAfter: number): number {
    const ms = wallMs(wall);
    const valid = [ms - offsetBefore, ms - offsetAfter].filter((instant) => this.offsetAt(instant) === ms - instant);
    return valid.length > 0 ? Math.min(...valid) : ms - offsetBefore;
  }
}

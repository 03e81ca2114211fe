import type { Static } from "@sinclair/typebox";
import type { Clock, ClockTimer } from "../clock.ts";
import type { EventLog } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import type { CreateScheduleBody, Schedule } from "../schemas/schedules.ts";
import type { SessionEvents } from "../schemas/sessions.ts";
import type { Store } from "../store/database.ts";
import { DEFAULT_PAGE_SIZE, type PageAtCursor } from "../store/page-cursor.ts";
import type { ScheduleRepository } from "../store/schedule-repository.ts";
import type { SessionPrompts } from "../sessions/session-prompts.ts";
import type { SessionRecords } from "../sessions/session-records.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { nextCronTime, parseCron } from "./cron.ts";
import { TimeZone } from "./time-zone.ts";

export interface SessionSchedulesDeps {
  store: Store;
  repository: ScheduleRepository;
  records: SessionRecords;
  prompts: SessionPrompts;
  events: EventLog<typeof SessionEvents>;
  clock: Clock;
  logger: Logger;
}

/** A run this late (the server was down, the machine slept) is missed: its schedule's `missed` says what it does. */
const MISSED_AFTER_MS = 60_000;
/** Schedules a session may have. */
const MAX_SCHEDULES = 100;
/** The timer looks again at least this often (a timer of weeks is beyond what setTimeout holds). */
const MAX_WAIT_MS = 24 * 60 * 60_000;
/** After a run that could not be written (a locked database, a full disk), the next look. */
const RETRY_MS = 30_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Scheduled prompts: each run queues its prompt as a sent one is queued (SessionPrompts), in one
 * transaction with the schedule's new next run and its event. One timer, on the injected clock, waits
 * for the earliest next run of all sessions' schedules; `start` runs what came due while the server
 * was down.
 */
export class SessionSchedules {
  private timer: ClockTimer | undefined;
  private stopped = false;

  constructor(private readonly deps: SessionSchedulesDeps) {}

  create(sessionId: string, body: Static<typeof CreateScheduleBody>): Schedule {
    if ((body.at === undefined) === (body.cron === undefined)) {
      throw new InvalidInputError("give either `at` (one run at a time) or `cron` (runs on a cron expression), not both nor neither");
    }
    const zone = new TimeZone(body.timezone ?? "UTC");
    const now = this.deps.clock.now();
    const nextRun = body.at === undefined ? this.firstCronRun(body.cron!, zone, now) : this.oneRun(body.at, now);
    const schedule: Schedule = {
      id: newId("sch"),
      sessionId,
      text: body.text,
      at: body.at === undefined ? null : iso(nextRun),
      cron: body.cron?.trim() ?? null,
      timezone: zone.canonicalName,
      missed: body.missed ?? "run-once",
      nextRunAt: iso(nextRun),
      lastRunAt: null,
      createdAt: iso(now),
    };
    this.deps.store.transaction(() => {
      this.deps.records.get(sessionId);
      if (this.deps.repository.count(sessionId) >= MAX_SCHEDULES) throw new ConflictError(`the session has ${MAX_SCHEDULES} schedules, as many as it may`);
      this.deps.repository.save(schedule);
      this.deps.records.emit(sessionId, "session.schedule.created", { schedule });
    });
    this.arm();
    return schedule;
  }

  /** A page of the session's schedules, oldest first, with the event cursor read before it. */
  list(sessionId: string, limit = DEFAULT_PAGE_SIZE, cursor?: string): PageAtCursor {
    const eventCursor = this.deps.events.cursor();
    const page = this.deps.store.read(() => {
      this.deps.records.get(sessionId);
      return this.deps.repository.list(sessionId, limit, cursor);
    });
    return { json: new TextEncoder().encode(JSON.stringify(page.items)), next: page.next, eventCursor };
  }

  remove(sessionId: string, scheduleId: string): { id: string } {
    this.deps.store.transaction(() => {
      this.deps.records.get(sessionId);
      if (this.deps.repository.get(scheduleId)?.sessionId !== sessionId) throw new NotFoundError(`no schedule ${scheduleId} in session ${sessionId}`);
      this.deps.repository.remove(scheduleId);
      this.deps.records.emit(sessionId, "session.schedule.deleted", { scheduleId });
    });
    this.arm();
    return { id: scheduleId };
  }

  /** At start-up: runs what came due while the server was down (each as its `missed` says), then waits for the next. */
  start(): void {
    this.stopped = false;
    this.runDue();
  }

  stop(): void {
    this.stopped = true;
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private oneRun(at: string, now: number): number {
    const time = Date.parse(at);
    if (time <= now) throw new InvalidInputError(`at: ${at} is not in the future (it is ${iso(now)})`);
    return time;
  }

  private firstCronRun(expression: string, zone: TimeZone, now: number): number {
    const next = nextCronTime(parseCron(expression), zone, now);
    if (next === null) throw new InvalidInputError(`cron: "${expression}" never matches a day (looked eight years ahead)`);
    return next;
  }

  /** Runs each schedule that is due, starts the turns of the sessions it queued prompts in, and sets the timer again. */
  private runDue(): void {
    this.timer = undefined;
    const now = this.deps.clock.now();
    const queuedIn = new Set<string>();
    let failed = false;
    for (const schedule of this.deps.repository.due(iso(now))) {
      try {
        if (this.run(schedule, now)) queuedIn.add(schedule.sessionId);
      } catch (error) {
        failed = true;
        this.deps.logger.error("a scheduled prompt could not be queued; trying again shortly", {
          scheduleId: schedule.id,
          sessionId: schedule.sessionId,
          error,
        });
      }
    }
    for (const sessionId of queuedIn) this.deps.prompts.startNext(sessionId);
    this.arm(failed ? RETRY_MS : 0);
  }

  /**
   * One run: the prompt queued (or, for a missed run of a `skip` schedule, nothing), the next run
   * counted from now (runs missed meanwhile are not run one by one), and the event; true when a
   * prompt was queued.
   */
  private run(schedule: Schedule, now: number): boolean {
    const dueAt = schedule.nextRunAt!;
    const missed = now - Date.parse(dueAt) > MISSED_AFTER_MS;
    const next = schedule.cron === null ? null : nextCronTime(parseCron(schedule.cron), new TimeZone(schedule.timezone), now);
    const updated: Schedule = { ...schedule, nextRunAt: next === null ? null : iso(next) };
    return this.deps.store.transaction(() => {
      if (missed && schedule.missed === "skip") {
        this.deps.repository.save(updated);
        this.deps.records.emit(schedule.sessionId, "session.schedule.skipped", { schedule: updated, dueAt });
        return false;
      }
      updated.lastRunAt = iso(now);
      // The run's own client id: a run is queued once, whatever happens after.
      const { prompt } = this.deps.prompts.queue(
        schedule.sessionId,
        { text: schedule.text, clientId: `schedule:${schedule.id}:${dueAt}` },
        { takesOver: false },
      );
      this.deps.repository.save(updated);
      this.deps.records.emit(schedule.sessionId, "session.schedule.fired", { schedule: updated, promptId: prompt.id, dueAt, missed });
      return true;
    });
  }

  /** One timer, for the earliest next run of every session's schedules (at least `minWaitMs` away). */
  private arm(minWaitMs = 0): void {
    this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.deps.repository.nextRunAt();
    if (this.stopped || next === null) return;
    const wait = Math.min(Math.max(minWaitMs, Date.parse(next) - this.deps.clock.now()), MAX_WAIT_MS);
    this.timer = this.deps.clock.setTimeout(() => this.runDue(), wait);
    this.timer.unref?.();
  }
}

/** Scheduled prompts: a session's prompts queued at a time (`at`) or on a cron expression. */
import { Type, type Static } from "@sinclair/typebox";
import { Nullable, PageQuery, Timestamp } from "./common.ts";

export const MissedRuns = Type.Union([Type.Literal("run-once"), Type.Literal("skip")], {
  description:
    "What a run missed while the server was down (or the machine slept) does: `run-once` queues the prompt once however many runs were missed; `skip` queues nothing until the next run. A run is missed when it comes over a minute late.",
});

export const Schedule = Type.Object(
  {
    id: Type.String(),
    sessionId: Type.String(),
    text: Type.String({ description: "The prompt queued at each run." }),
    at: Nullable(Timestamp),
    cron: Nullable(Type.String({ description: "Five fields: minute hour day-of-month month day-of-week, on `timezone`'s wall clock." })),
    timezone: Type.String({ description: "The IANA time zone `cron` is read in (`UTC` unless given)." }),
    missed: MissedRuns,
    nextRunAt: Nullable(Timestamp),
    lastRunAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { $id: "Schedule", description: "A one-shot schedule (`at`) keeps its record with nextRunAt null once it has run, until it is deleted." },
);
export type Schedule = Static<typeof Schedule>;

export const CreateScheduleBody = Type.Object({
  text: Type.String({ minLength: 1, maxLength: 200_000 }),
  at: Type.Optional(Type.String({ format: "date-time", description: "Once, at this time (in the future). Give `at` or `cron`, not both." })),
  cron: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Each time it matches: `*`, lists, ranges, steps, month and day names, `@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`.",
    }),
  ),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "An IANA time zone for `cron`; UTC by default." })),
  missed: Type.Optional(MissedRuns),
});

export const ScheduleListQuery = PageQuery;

/** The session events of schedules (the sessions module publishes them with the session as subject). */
export const ScheduleEvents = {
  "session.schedule.created": Type.Object({ schedule: Schedule }),
  "session.schedule.deleted": Type.Object({ scheduleId: Type.String() }),
  /** A run queued its prompt (the `session.prompt.queued` before it carries the prompt); `schedule` has its new nextRunAt. */
  "session.schedule.fired": Type.Object({
    schedule: Schedule,
    promptId: Type.String(),
    dueAt: Timestamp,
    missed: Type.Boolean({ description: "The run was missed (over a minute late) and runs once now (`missed: run-once`)." }),
  }),
  /** A missed run of a schedule with `missed: skip` queued nothing. */
  "session.schedule.skipped": Type.Object({ schedule: Schedule, dueAt: Timestamp }),
};

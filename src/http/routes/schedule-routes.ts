import { Type } from "@sinclair/typebox";
import { CreateScheduleBody, Schedule, ScheduleListQuery } from "../../schemas/schedules.ts";
import type { SessionSchedules } from "../../schedules/session-schedules.ts";
import { pageResponse } from "../paging.ts";
import { defineRoute } from "../route.ts";
import { SessionParams } from "./session-routes.ts";

const ScheduleParams = Type.Object({ id: Type.String({ minLength: 1 }), scheduleId: Type.String({ minLength: 1 }) });

export function scheduleRoutes(schedules: SessionSchedules) {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/sessions/:id/schedules",
      tag: "sessions",
      summary: "Schedule a prompt: once (`at`) or on a cron expression (`cron`, read in `timezone`)",
      description:
        "Each run queues `text` as a sent prompt is queued (`session.prompt.queued`, then `session.schedule.fired`); a queue a " +
        "spent goal budget paused stays paused. A run missed while the server was down runs once at start, or is skipped with " +
        "`missed: skip`. A bad `at`, `cron` or `timezone` is 400 and nothing is stored; a session has at most 100 schedules (409).",
      params: SessionParams,
      body: CreateScheduleBody,
      response: Schedule,
      successStatus: 201,
      handler: ({ params, body }) => schedules.create(params.id, body),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sessions/:id/schedules",
      tag: "sessions",
      summary: "The session's schedules, oldest first",
      description: 'Paged: `limit` (50 by default, at most 200); the next page is the `Link: <…>; rel="next"` header.',
      params: SessionParams,
      query: ScheduleListQuery,
      response: Type.Array(Schedule),
      paged: true,
      handler: ({ params, query, request }) => pageResponse(schedules.list(params.id, query.limit, query.cursor), request),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/sessions/:id/schedules/:scheduleId",
      tag: "sessions",
      summary: "Delete a schedule: no further runs (prompts it queued stay queued)",
      params: ScheduleParams,
      response: Type.Object({ id: Type.String() }),
      handler: ({ params }) => schedules.remove(params.id, params.scheduleId),
    }),
  ];
}

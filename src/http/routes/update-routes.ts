import { UpdateRequestBody, UpdateStatus } from "../../schemas/update.ts";
import type { UpdateService } from "../../update/update-service.ts";
import { defineRoute } from "../route.ts";

export function updateRoutes(updates: UpdateService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/update",
      tag: "system",
      summary: "Update state of the running server, from the last check",
      description:
        "The server checks the channel's signed release manifest at start-up and every `updateCheckIntervalHours`. " +
        "`lastApply` is the last update applied (it survives the restart: `done`, or `failed` with the reason after a rollback).",
      response: UpdateStatus,
      handler: () => updates.status(),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/update/check",
      tag: "system",
      summary: "Check for an update now; the channel is the configured one unless given",
      body: UpdateRequestBody,
      response: UpdateStatus,
      handler: ({ body }) => updates.check(body.channel),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/update/apply",
      tag: "system",
      summary: "Download, verify and swap in the latest release, then restart; only when no prompt is in flight",
      description:
        "Checks the channel afresh, answers 202 with `lastApply.state` `downloading`, and carries on in the background " +
        "(follow it with GET /v1/update). 409 while a prompt is in flight (naming the sessions; nothing is interrupted), " +
        "when already up to date, while another apply runs, when the check fails, and for a build that cannot replace itself.",
      body: UpdateRequestBody,
      response: UpdateStatus,
      successStatus: 202,
      handler: ({ body }) => updates.apply(body.channel),
    }),
  ];
}

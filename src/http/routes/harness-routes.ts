import { Type } from "@sinclair/typebox";
import { AccountLabelBody, Harness, HarnessAccount, HarnessList, LifecycleBody, UpdateHarnessBody } from "../../schemas/harnesses.ts";
import type { HarnessService } from "../../harness/harness-service.ts";
import { keptJson } from "../compressed-json.ts";
import { defineRoute } from "../route.ts";

const HarnessParams = Type.Object({ id: Type.String({ minLength: 1 }) });

const AccountParams = Type.Object({ id: Type.String({ minLength: 1 }), accountId: Type.String({ minLength: 1 }) });

/** (A command's output, `GET /v1/terminals/{terminalId}`, is served with the other terminals: terminal-routes.ts.) */
export function harnessRoutes(harnesses: HarnessService) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/harnesses",
      tag: "harnesses",
      summary: "Every harness with its readiness and login state, from the last scan",
      response: HarnessList,
      handler: ({ request }) => keptJson(harnesses.listJson(), request),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/harnesses/:id",
      tag: "harnesses",
      summary: "One harness",
      params: HarnessParams,
      response: Harness,
      handler: ({ params }) => harnesses.get(params.id),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/rescan",
      tag: "harnesses",
      summary: "Re-detect the installed CLIs without restarting; returns every harness",
      description: "Finds each executable on the service's PATH, reads its version and its login state, in parallel.",
      response: HarnessList,
      handler: () => harnesses.rescan(),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/auth/refresh",
      tag: "harnesses",
      summary: "Re-read every harness's login state; returns every harness",
      response: HarnessList,
      handler: () => harnesses.refreshAuth(),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/harnesses/:id",
      tag: "harnesses",
      summary: "Enable or disable a harness (settings.override); null follows the default again",
      params: HarnessParams,
      body: UpdateHarnessBody,
      response: Harness,
      handler: ({ params, body }) => harnesses.setEnabled(params.id, body.enabled),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/:id/install",
      tag: "harnesses",
      summary: "Install the harness with one of its install methods, in the background",
      description:
        "Answers at once with lifecycle.phase `installing` and the terminalId of the command's output (also streamed as " +
        "`terminal.output` events); the phase then goes to `idle` or `failed` and the harness is detected again. One " +
        "operation per harness at a time (409).",
      params: HarnessParams,
      body: LifecycleBody,
      response: Harness,
      successStatus: 202,
      handler: ({ params, body }) => harnesses.startOperation(params.id, "installing", body.methodId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/:id/update",
      tag: "harnesses",
      summary: "Update the harness to its latest version, in the background (as install)",
      params: HarnessParams,
      body: LifecycleBody,
      response: Harness,
      successStatus: 202,
      handler: ({ params, body }) => harnesses.startOperation(params.id, "updating", body.methodId),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/:id/accounts",
      tag: "harnesses",
      summary: "Add an account: a new config home (CLAUDE_CONFIG_DIR, CODEX_HOME) to log in to separately",
      description:
        "Only for harnesses with supportsMultipleAccounts (400 otherwise). The account starts unauthenticated; its " +
        "`detail` gives the command that logs in to it from a terminal.",
      params: HarnessParams,
      body: AccountLabelBody,
      response: HarnessAccount,
      successStatus: 201,
      handler: ({ params, body }) => harnesses.addAccount(params.id, body.label),
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/harnesses/:id/accounts/:accountId",
      tag: "harnesses",
      summary: "Rename an account (label only; an empty body changes nothing)",
      params: AccountParams,
      body: AccountLabelBody,
      response: HarnessAccount,
      handler: ({ params, body }) => harnesses.updateAccount(params.id, params.accountId, body.label),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/harnesses/:id/accounts/:accountId/activate",
      tag: "harnesses",
      summary: "Make an account the active one: new sessions of this harness use it",
      params: AccountParams,
      response: Harness,
      handler: ({ params }) => harnesses.activateAccount(params.id, params.accountId),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/harnesses/:id/accounts/:accountId",
      tag: "harnesses",
      summary: "Remove an account and delete its config home; the default account cannot be removed (409)",
      description: "When the removed account was active, the default account becomes active.",
      params: AccountParams,
      response: Harness,
      handler: ({ params }) => harnesses.removeAccount(params.id, params.accountId),
    }),
  ];
}

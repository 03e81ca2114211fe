import { Type } from "@sinclair/typebox";
import { ProviderLoginAttempt, RespondProviderLoginBody, StartProviderLoginBody } from "../../schemas/harnesses.ts";
import type { ProviderLogins } from "../../harness/provider-login.ts";
import { defineRoute } from "../route.ts";

const ProviderParams = Type.Object({ providerId: Type.String({ minLength: 1 }) });
const AttemptParams = Type.Object({ providerId: Type.String({ minLength: 1 }), attemptId: Type.String({ minLength: 1 }) });
const BASE = "/v1/harnesses/opencode/providers/:providerId/login";

/** OpenCode's provider logins (spec endpoint 3), and reading, answering and cancelling an attempt. */
export function providerLoginRoutes(logins: ProviderLogins) {
  return [
    defineRoute({
      method: "POST",
      path: BASE,
      tag: "harnesses",
      summary: "Start logging OpenCode in to a provider",
      description:
        "`api_key`: the attempt asks for the key with a `secret` prompt; answer it with …/respond, and the key is written to " +
        "OpenCode's auth.json. `oauth` (github-copilot): the attempt's `event` carries the user code and the verification " +
        "URL; the attempt succeeds by itself once the code is entered. Poll the attempt, or watch `harness.updated`.",
      params: ProviderParams,
      body: StartProviderLoginBody,
      response: ProviderLoginAttempt,
      successStatus: 201,
      handler: ({ params, body }) => logins.start(params.providerId, body.method),
    }),
    defineRoute({
      method: "GET",
      path: `${BASE}/:attemptId`,
      tag: "harnesses",
      summary: "A provider login attempt",
      params: AttemptParams,
      response: ProviderLoginAttempt,
      handler: ({ params }) => logins.get(params.providerId, params.attemptId),
    }),
    defineRoute({
      method: "POST",
      path: `${BASE}/:attemptId/respond`,
      tag: "harnesses",
      summary: "Answer the attempt's prompt (the API key); the value is never stored by Atrium nor logged",
      params: AttemptParams,
      body: RespondProviderLoginBody,
      response: ProviderLoginAttempt,
      handler: ({ params, body }) => logins.respond(params.providerId, params.attemptId, body.value),
    }),
    defineRoute({
      method: "POST",
      path: `${BASE}/:attemptId/cancel`,
      tag: "harnesses",
      summary: "Cancel a running attempt (409 once it has ended)",
      params: AttemptParams,
      response: ProviderLoginAttempt,
      handler: ({ params }) => logins.cancel(params.providerId, params.attemptId),
    }),
  ];
}

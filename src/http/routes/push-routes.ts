import { Type } from "@sinclair/typebox";
import type { AccessTokens } from "../../auth/access-tokens.ts";
import type { PushSubscriptions } from "../../push/push-subscriptions.ts";
import { CreatePushSubscriptionBody, PushSubscription, PushSubscriptionList, PushVapidKey, UpdatePushSubscriptionBody } from "../../schemas/push.ts";
import { bearerToken } from "../auth-guard.ts";
import { jsonAnswer } from "../compressed-json.ts";
import { unauthorized } from "../http-error.ts";
import { defineRoute } from "../route.ts";

const SubscriptionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
const OWN_ONLY = "A named token sees and changes only the subscriptions it made (another's is 404); the admin token every one.";

/** The name of the (already verified) token a request carries: whose subscriptions it sees. */
function callerOf(request: Request, tokens: AccessTokens): string {
  const name = tokens.nameOf(bearerToken(request.headers.get("authorization")) ?? "");
  // Revoked in the instant since the guard's check.
  if (name === null) throw unauthorized("the bearer token is not valid");
  return name;
}

/** Web Push: the server's VAPID key and the browsers subscribed to notices (parse, call, shape). */
export function pushRoutes(subscriptions: PushSubscriptions, vapidKey: () => Promise<string>, tokens: AccessTokens) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/push/vapid-key",
      tag: "push",
      summary: "The server's VAPID public key, for PushManager.subscribe's applicationServerKey",
      description: "Made on first use and kept in the data dir (`vapid-keys.json`, 0600): it stays the same across restarts and updates.",
      response: PushVapidKey,
      handler: async () => ({ publicKey: await vapidKey() }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/push/subscriptions",
      tag: "push",
      summary: "The browsers that get Web Push notices",
      description: OWN_ONLY,
      response: PushSubscriptionList,
      handler: ({ request }) => ({ subscriptions: subscriptions.list(callerOf(request, tokens)) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/push/subscriptions",
      tag: "push",
      summary: "Subscribe a browser to Web Push notices: a session's question, a plan to approve, a long turn's end, a failure",
      description:
        "**201** with the new record; the same endpoint posted again replaces its record (keeping its id) and answers **200**. " +
        "`subscription` is the browser's PushSubscription.toJSON(). It belongs to the token that posts it: revoking that token deletes it. " +
        "400 names the field that is wrong (an endpoint that is not https, a key of the wrong size or off the curve); 409 past 50 " +
        "subscriptions of one token.",
      body: CreatePushSubscriptionBody,
      response: PushSubscription,
      moreSuccesses: { "201": "Subscribed: a new record (200: an earlier record of the same endpoint replaced)." },
      // 201 or 200, so the status is the Response's own (a route's successStatus would override it).
      handler: ({ body, request }) => {
        const { subscription, created } = subscriptions.subscribe(callerOf(request, tokens), body);
        return jsonAnswer(subscription, request, created ? 201 : 200);
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/push/subscriptions/:id",
      tag: "push",
      summary: "Change what a subscription is pushed, or the device's name",
      description: OWN_ONLY,
      params: SubscriptionParams,
      body: UpdatePushSubscriptionBody,
      response: PushSubscription,
      handler: ({ params, body, request }) => subscriptions.update(callerOf(request, tokens), params.id, body),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/push/subscriptions/:id",
      tag: "push",
      summary: "Unsubscribe a browser: nothing more is pushed to it",
      description: OWN_ONLY,
      params: SubscriptionParams,
      response: Type.Null(),
      successStatus: 204,
      handler: ({ params, request }) => {
        subscriptions.unsubscribe(callerOf(request, tokens), params.id);
        return new Response(null, { status: 204 });
      },
    }),
  ];
}

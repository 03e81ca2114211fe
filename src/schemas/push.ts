import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Timestamp } from "./common.ts";

/** base64url without padding, as PushSubscription.toJSON() gives its keys (padding is accepted too). */
const Base64Url = (description: string, maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: "^[A-Za-z0-9_-]+={0,2}$", description });

export const PushEventKind = Type.Union([Type.Literal("question"), Type.Literal("plan"), Type.Literal("turn"), Type.Literal("failed")], {
  $id: "PushEventKind",
  description:
    "`question`: a session asks a question (a permission too); `plan`: a plan waits for approval; `turn`: a turn that ran longer than " +
    "config `pushLongTurnSeconds` (60 by default) ended; `failed`: a turn ended in error (the agent failed, or could not start).",
});
export type PushEventKind = Static<typeof PushEventKind>;
export const PUSH_EVENT_KINDS: PushEventKind[] = ["question", "plan", "turn", "failed"];

const PushEventKinds = Type.Array(PushEventKind, { maxItems: 4, uniqueItems: true, description: "What it is pushed; all four by default." });
const DeviceName = Type.String({ minLength: 1, maxLength: 100, description: "The device, as the user names it (e.g. `Pixel`)." });

export const CreatePushSubscriptionBody = Type.Object({
  subscription: Type.Object(
    {
      endpoint: Type.String({
        minLength: 1,
        maxLength: 2048,
        description: "The push service's URL for this browser (https; http only on a loopback host).",
      }),
      keys: Type.Object({
        p256dh: Base64Url("The browser's P-256 public key: 65 bytes (an uncompressed point), base64url.", 200),
        auth: Base64Url("The browser's 16-byte authentication secret, base64url.", 64),
      }),
    },
    { description: "As the browser's PushSubscription.toJSON() gives it (expirationTime is ignored)." },
  ),
  name: Type.Optional(Nullable(DeviceName)),
  events: Type.Optional(PushEventKinds),
});
export type CreatePushSubscriptionBody = Static<typeof CreatePushSubscriptionBody>;

export const UpdatePushSubscriptionBody = Type.Object({
  name: Type.Optional(Nullable(DeviceName)),
  events: Type.Optional(PushEventKinds),
});
export type UpdatePushSubscriptionBody = Static<typeof UpdatePushSubscriptionBody>;

export const PushSubscription = Type.Object(
  {
    id: Type.String(),
    endpointOrigin: Type.String({ description: "The push service (the endpoint's origin); the endpoint and the keys are never returned." }),
    name: Nullable(Type.String()),
    tokenName: Type.String({ description: "The token that made it (`admin` for the admin token); revoking that token deletes it." }),
    events: Type.Array(PushEventKind),
    createdAt: Timestamp,
    lastSuccessAt: Nullable(Timestamp),
    lastError: Nullable(Type.String({ description: "How the last push that failed failed (a status, a network error); null after a success." })),
  },
  { $id: "PushSubscription" },
);
export type PushSubscription = Static<typeof PushSubscription>;

export const PushSubscriptionList = Type.Object({ subscriptions: Type.Array(PushSubscription) }, { $id: "PushSubscriptionList" });
export type PushSubscriptionList = Static<typeof PushSubscriptionList>;

export const PushVapidKey = Type.Object(
  {
    publicKey: Type.String({
      description: "The server's VAPID public key (a P-256 point, base64url): PushManager.subscribe's applicationServerKey.",
    }),
  },
  { $id: "PushVapidKey" },
);

/** What a push carries, encrypted to the browser (RFC 8291): what the service worker shows. Never a secret. */
export const PushPayload = Type.Object(
  {
    kind: PushEventKind,
    sessionId: Type.String(),
    projectId: Type.String(),
    title: Type.String({ description: "The project's name and the session's title: `Demo · Fix the port`." }),
    body: Type.String({ description: "What the session needs, at most 200 characters: `Write hello.txt — asks for permission`." }),
    url: Type.String({ description: "The console's page of the session: `/#/sessions/<id>`." }),
    tag: Type.String({ description: "`session-<id>`: a newer notice of the session replaces the older one." }),
  },
  { $id: "PushPayload" },
);
export type PushPayload = Static<typeof PushPayload>;

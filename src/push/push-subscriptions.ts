import { createPublicKey } from "node:crypto";
import { ADMIN_TOKEN_NAME } from "../auth/access-tokens.ts";
import type { Clock } from "../clock.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { newId } from "../ids.ts";
import { PUSH_EVENT_KINDS, type CreatePushSubscriptionBody, type PushSubscription, type UpdatePushSubscriptionBody } from "../schemas/push.ts";
import type { Store } from "../store/database.ts";
import type { PushSubscriptionRepository, StoredPushSubscription } from "../store/push-subscription-repository.ts";
import { isLoopbackHost } from "../system/loopback.ts";

/** Subscriptions one token may hold: a few devices, with room; the list stays one short page. */
export const MAX_SUBSCRIPTIONS_PER_TOKEN = 50;

export interface PushSubscriptionsDeps {
  store: Store;
  repository: PushSubscriptionRepository;
  clock: Clock;
}

const invalid = (field: string, expected: string) => new InvalidInputError(`body field "${field}" is invalid: expected ${expected}`);

/** The push service's URL: absolute, https (a phone's push service is), http only on a loopback host (a local one in tests). */
function checkEndpoint(endpoint: string): URL {
  const field = "subscription.endpoint";
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid(field, "an absolute https URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    throw invalid(field, "an https URL (http only on a loopback host)");
  }
  if (url.username !== "" || url.password !== "") throw invalid(field, "a URL without a user name or password");
  return url;
}

function decodeBase64Url(value: string): Buffer {
  return Buffer.from(value.replace(/=+$/, ""), "base64url");
}

/** The browser's key: a P-256 point, uncompressed (65 bytes, 0x04 first), that is on the curve. */
function checkP256dh(value: string): string {
  const bytes = decodeBase64Url(value);
  const expected = "a P-256 public key, uncompressed (65 bytes), base64url";
  if (bytes.length !== 65 || bytes[0] !== 4) throw invalid("subscription.keys.p256dh", expected);
  try {
    createPublicKey({
      key: { kty: "EC", crv: "P-256", x: bytes.subarray(1, 33).toString("base64url"), y: bytes.subarray(33).toString("base64url") },
      format: "jwk",
    });
  } catch {
    throw invalid("subscription.keys.p256dh", `${expected}, on the curve`);
  }
  return bytes.toString("base64url");
}

function checkAuth(value: string): string {
  const bytes = decodeBase64Url(value);
  if (bytes.length !== 16) throw invalid("subscription.keys.auth", "a 16-byte authentication secret, base64url");
  return bytes.toString("base64url");
}

/** The record a client sees: never the endpoint's path nor the keys. */
export function pushSubscriptionView(stored: StoredPushSubscription): PushSubscription {
  return {
    id: stored.id,
    endpointOrigin: new URL(stored.endpoint).origin,
    name: stored.name,
    tokenName: stored.tokenName,
    events: stored.events,
    createdAt: stored.createdAt,
    lastSuccessAt: stored.lastSuccessAt,
    lastError: stored.lastError,
  };
}

/**
 * The browsers that asked for Web Push, each owned by the token that subscribed it: a named token
 * sees and changes only its own (another's is 404 to it); the admin token sees every one.
 */
export class PushSubscriptions {
  constructor(private readonly deps: PushSubscriptionsDeps) {}

  list(caller: string): PushSubscription[] {
    const all = this.deps.repository.list(caller === ADMIN_TOKEN_NAME ? undefined : caller);
    return all.map(pushSubscriptionView);
  }

  /**
   * Keeps a browser's subscription. The same endpoint again (the browser subscribed anew, its keys
   * may have changed) replaces the record it had, keeping its id; `created` is false then.
   */
  subscribe(caller: string, body: CreatePushSubscriptionBody): { subscription: PushSubscription; created: boolean } {
    const endpoint = checkEndpoint(body.subscription.endpoint).href;
    const p256dh = checkP256dh(body.subscription.keys.p256dh);
    const auth = checkAuth(body.subscription.keys.auth);
    return this.deps.store.transaction(() => {
      const existing = this.deps.repository.findByEndpoint(endpoint);
      if (existing?.tokenName !== caller && this.deps.repository.count(caller) >= MAX_SUBSCRIPTIONS_PER_TOKEN) {
        throw new ConflictError(`the token "${caller}" has ${MAX_SUBSCRIPTIONS_PER_TOKEN} push subscriptions already; delete one first`);
      }
      const stored: StoredPushSubscription = {
        id: existing?.id ?? newId("psub"),
        endpoint,
        p256dh,
        auth,
        tokenName: caller,
        name: body.name ?? null,
        events: orderedKinds(body.events ?? PUSH_EVENT_KINDS),
        createdAt: existing?.createdAt ?? new Date(this.deps.clock.now()).toISOString(),
        lastSuccessAt: null,
        lastError: null,
      };
      this.deps.repository.save(stored);
      return { subscription: pushSubscriptionView(stored), created: existing === undefined };
    });
  }

  update(caller: string, id: string, body: UpdatePushSubscriptionBody): PushSubscription {
    return this.deps.store.transaction(() => {
      const stored = this.owned(caller, id);
      if (body.name !== undefined) stored.name = body.name;
      if (body.events !== undefined) stored.events = orderedKinds(body.events);
      this.deps.repository.save(stored);
      return pushSubscriptionView(stored);
    });
  }

  unsubscribe(caller: string, id: string): void {
    this.deps.store.transaction(() => {
      this.owned(caller, id);
      this.deps.repository.delete(id);
    });
  }

  private owned(caller: string, id: string): StoredPushSubscription {
    const stored = this.deps.repository.get(id);
    if (!stored || (caller !== ADMIN_TOKEN_NAME && stored.tokenName !== caller)) throw new NotFoundError(`no push subscription has id ${id}`);
    return stored;
  }
}

/** The kinds in their documented order, each once. */
function orderedKinds(kinds: readonly string[]): StoredPushSubscription["events"] {
  return PUSH_EVENT_KINDS.filter((kind) => kinds.includes(kind));
}

import type { Clock, ClockTimer } from "../clock.ts";
import type { Logger } from "../logging/logger.ts";
import type { PushPayload } from "../schemas/push.ts";
import type { Store } from "../store/database.ts";
import type { PushSubscriptionRepository, StoredPushSubscription } from "../store/push-subscription-repository.ts";
import { storageProblem } from "../store/storage-errors.ts";
import type { VapidKeys } from "./vapid-keys.ts";

export type PushUrgency = "normal" | "high";

export interface PushDeliveryTimings {
  /** Waits before each retry of a push the service did not take (5xx, 429, no answer); their count is the retries. */
  retryDelaysMs: number[];
  /** A push service's `Retry-After` is honoured up to this long. */
  maxRetryAfterMs: number;
  /** How long one request to a push service may take. */
  requestTimeoutMs: number;
  /** How long the push service keeps a push for a device that is offline (the `TTL` header). */
  ttlSeconds: number;
}

export const DEFAULT_DELIVERY_TIMINGS: PushDeliveryTimings = {
  retryDelaysMs: [1_000, 4_000, 16_000],
  maxRetryAfterMs: 15 * 60_000,
  requestTimeoutMs: 30_000,
  ttlSeconds: 24 * 60 * 60,
};

export interface PushDeliveryDeps extends PushDeliveryTimings {
  store: Store;
  repository: PushSubscriptionRepository;
  vapid: VapidKeys;
  /** The VAPID subject: a mailto: or https: contact for the push services. */
  subject: string;
  clock: Clock;
  logger: Logger;
}

interface Job {
  subscriptionId: string;
  payload: PushPayload;
  urgency: PushUrgency;
}

/** How a push went: taken, gone for good, worth another try (maybe after `retryAfterMs`), or refused. */
type Outcome =
  | { kind: "sent" }
  | { kind: "gone"; error: string }
  | { kind: "retry"; error: string; retryAfterMs?: number }
  | { kind: "refused"; error: string };

/** Pushes waiting or being sent at most; past that a push is dropped (a push service that hangs cannot grow memory). */
const MAX_PENDING = 1_000;

/** `Retry-After`: seconds, or an HTTP date. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function answerOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  const said = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return `the push service answered ${response.status}${said ? `: ${said}` : ""}`;
}

/**
 * Sends pushes (RFC 8030) to subscriptions, one request each: the payload encrypted to the browser
 * (aes128gcm, RFC 8291) and signed for with the VAPID key (RFC 8292), both by the web-push package;
 * the request is ours (fetch), as are the retries. 201/202 records `lastSuccessAt`; 404 and 410 delete
 * the subscription (the browser unsubscribed); 429, 5xx and no answer are tried again after 1, 4 and
 * 16 s (or the service's Retry-After), on the injected clock; anything else is recorded as `lastError`.
 * Nothing here throws to its caller, and a write that fails (a locked database, a full disk) is logged.
 */
export class PushDelivery {
  private readonly timers = new Set<ClockTimer>();
  private readonly sending = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(private readonly deps: PushDeliveryDeps) {}

  /** Queues a push; it is sent at once, in the background. */
  send(subscriptionId: string, payload: PushPayload, urgency: PushUrgency): void {
    if (this.stopped) return;
    // Waiting for a retry or being sent (one moving from its timer to its request may count twice).
    if (this.sending.size + this.timers.size >= MAX_PENDING) {
      this.deps.logger.warn("too many pushes wait to be sent; dropping one", { subscriptionId, kind: payload.kind, sessionId: payload.sessionId });
      return;
    }
    this.attempt({ subscriptionId, payload, urgency }, 0);
  }

  /** Ends every retry and request; what was not sent is not. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) this.deps.clock.clearTimeout(timer);
    this.timers.clear();
    this.abort.abort(new Error("the server is stopping"));
    await Promise.allSettled([...this.sending]);
  }

  private attempt(job: Job, attempt: number): void {
    const run = this.post(job, attempt)
      .catch((error: unknown) => {
        this.deps.logger.error("a push failed unexpectedly", { subscriptionId: job.subscriptionId, error });
      })
      .finally(() => this.sending.delete(run));
    this.sending.add(run);
  }

  private async post(job: Job, attempt: number): Promise<void> {
    const subscription = this.deps.repository.get(job.subscriptionId);
    // Deleted meanwhile (by its client, or its token revoked): nothing to send.
    if (!subscription || this.stopped) return;
    const outcome = await this.request(subscription, job);
    if (this.stopped) return;
    const origin = new URL(subscription.endpoint).origin;
    const tries = attempt + 1;
    switch (outcome.kind) {
      case "sent":
        this.record(subscription, () => this.deps.repository.recordSuccess(subscription.id, new Date(this.deps.clock.now()).toISOString()));
        this.deps.logger.debug("pushed", { subscriptionId: subscription.id, kind: job.payload.kind, sessionId: job.payload.sessionId, tries });
        break;
      case "gone":
        this.record(subscription, () => this.deps.repository.delete(subscription.id));
        this.deps.logger.info("removed a push subscription its push service no longer knows", {
          subscriptionId: subscription.id,
          origin,
          error: outcome.error,
        });
        break;
      case "retry": {
        const delay = this.deps.retryDelaysMs[attempt];
        if (delay !== undefined) {
          this.record(subscription, () => this.deps.repository.recordError(subscription.id, `${outcome.error} (trying again)`));
          const wait = Math.max(delay, Math.min(outcome.retryAfterMs ?? 0, this.deps.maxRetryAfterMs));
          const timer = this.deps.clock.setTimeout(() => {
            this.timers.delete(timer);
            if (!this.stopped) this.attempt(job, attempt + 1);
          }, wait);
          timer.unref?.();
          this.timers.add(timer);
          return;
        }
        const error = `${outcome.error}; gave up after ${tries} tries`;
        this.record(subscription, () => this.deps.repository.recordError(subscription.id, error));
        this.deps.logger.warn("a push could not be delivered", { subscriptionId: subscription.id, origin, error });
        break;
      }
      case "refused":
        this.record(subscription, () => this.deps.repository.recordError(subscription.id, outcome.error));
        this.deps.logger.warn("a push service refused a push", { subscriptionId: subscription.id, origin, error: outcome.error });
        break;
    }
  }

  private async request(subscription: StoredPushSubscription, job: Job): Promise<Outcome> {
    let details: { endpoint: string; headers: Record<string, string | number>; body: Buffer | null };
    try {
      const library = await this.deps.vapid.webPush();
      const { publicKey, privateKey } = await this.deps.vapid.keys();
      details = library.generateRequestDetails(
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        JSON.stringify(job.payload),
        {
          vapidDetails: { subject: this.deps.subject, publicKey, privateKey },
          TTL: this.deps.ttlSeconds,
          urgency: job.urgency,
          contentEncoding: "aes128gcm",
          topic: topicOf(job.payload.sessionId),
        },
      ) as typeof details;
    } catch (error) {
      return { kind: "refused", error: `the push could not be prepared: ${(error as Error).message}` };
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(details.headers)) if (name.toLowerCase() !== "content-length") headers.set(name, String(value));
    try {
      const response = await fetch(details.endpoint, {
        method: "POST",
        headers,
        body: details.body,
        redirect: "manual",
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.deps.requestTimeoutMs)]),
      });
      if (response.status === 201 || response.status === 202 || response.status === 200) {
        await response.body?.cancel().catch(() => undefined);
        return { kind: "sent" };
      }
      const error = await answerOf(response);
      if (response.status === 404 || response.status === 410) return { kind: "gone", error };
      if (response.status === 429 || response.status >= 500) {
        return { kind: "retry", error, retryAfterMs: retryAfterMs(response.headers.get("retry-after"), this.deps.clock.now()) };
      }
      return { kind: "refused", error };
    } catch (error) {
      return { kind: "retry", error: `the push service could not be reached: ${(error as Error).message}` };
    }
  }

  /** A write about a push; a locked database or a full disk is logged, never thrown. */
  private record(subscription: StoredPushSubscription, write: () => unknown): void {
    try {
      this.deps.store.transaction(write);
    } catch (error) {
      const problem = storageProblem(error);
      if (problem) this.deps.logger.warn("a push's outcome could not be recorded", { subscriptionId: subscription.id, reason: problem.message });
      else this.deps.logger.error("a push's outcome could not be recorded", { subscriptionId: subscription.id, error });
    }
  }
}

/**
 * The `Topic` header (RFC 8030 §5.4): a push waiting at the push service for an offline device is
 * replaced by a newer one of the same session. At most 32 base64url characters.
 */
function topicOf(sessionId: string): string | undefined {
  const topic = sessionId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32);
  return topic.length > 0 ? topic : undefined;
}

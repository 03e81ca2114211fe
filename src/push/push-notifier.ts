import type { EventListener } from "../events/event-log.ts";
import type { Logger } from "../logging/logger.ts";
import type { PushSubscriptionRepository } from "../store/push-subscription-repository.ts";
import type { PushDelivery } from "./push-delivery.ts";
import { pushPayload, type Notice, type NoticeReader } from "./push-notices.ts";

/** What a push says about its session besides the notice: whose it is and what it is called. */
export interface PushedSession {
  projectId: string;
  projectName: string | undefined;
  title: string;
}

export interface PushNotifierDeps {
  /** The event log's live listeners (after each commit). */
  events: { subscribe(listener: EventListener): () => void };
  reader: NoticeReader;
  repository: PushSubscriptionRepository;
  delivery: PushDelivery;
  /** Whether a token holds an event stream open on the session (the console's session page): its user sees it already. */
  isWatching(tokenName: string, sessionId: string): boolean;
  describe(sessionId: string): PushedSession | undefined;
  logger: Logger;
}

/**
 * Tells phones when a session needs its user. It hears every event as it is committed, picks out
 * what needs the user (push-notices.ts) and, outside the listener (a microtask later, so the session
 * that published it never waits), sends it to each subscription that wants that kind and whose token
 * does not watch the session right now. Sending is the delivery's, in the background.
 */
export class PushNotifier {
  private unsubscribe: (() => void) | undefined;
  private readonly notices: Notice[] = [];
  private draining = false;

  constructor(private readonly deps: PushNotifierDeps) {}

  start(): void {
    this.unsubscribe ??= this.deps.events.subscribe((event) => this.hear(event));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.notices.length = 0;
    await this.deps.delivery.stop();
  }

  private hear(event: Parameters<EventListener>[0]): void {
    // A listener that throws would fail the commit's other listeners: nothing here may.
    try {
      const notice = this.deps.reader.read(event);
      if (!notice) return;
      this.notices.push(notice);
      if (this.draining) return;
      this.draining = true;
      queueMicrotask(() => this.drain());
    } catch (error) {
      this.deps.logger.warn("an event could not be read for push notices", { kind: event.record.kind, error });
    }
  }

  private drain(): void {
    this.draining = false;
    for (let notice = this.notices.shift(); notice; notice = this.notices.shift()) {
      if (!this.unsubscribe) return;
      try {
        this.address(notice);
      } catch (error) {
        this.deps.logger.warn("a push notice could not be addressed", { kind: notice.kind, sessionId: notice.sessionId, error });
      }
    }
  }

  private address(notice: Notice): void {
    const subscriptions = this.deps.repository.list().filter((subscription) => subscription.events.includes(notice.kind));
    if (subscriptions.length === 0) return;
    const session = this.deps.describe(notice.sessionId);
    if (!session) return;
    const payload = pushPayload(notice, session);
    const urgency = notice.kind === "question" || notice.kind === "plan" ? "high" : "normal";
    for (const subscription of subscriptions) {
      if (this.deps.isWatching(subscription.tokenName, notice.sessionId)) {
        this.deps.logger.debug("not pushed: its token watches the session", {
          subscriptionId: subscription.id,
          kind: notice.kind,
          sessionId: notice.sessionId,
        });
        continue;
      }
      this.deps.delivery.send(subscription.id, payload, urgency);
    }
  }
}

import { pushRoutes } from "../http/routes/push-routes.ts";
import { DEFAULT_DELIVERY_TIMINGS, PushDelivery, type PushDeliveryTimings } from "../push/push-delivery.ts";
import { NoticeReader } from "../push/push-notices.ts";
import { PushNotifier } from "../push/push-notifier.ts";
import { PushSubscriptions } from "../push/push-subscriptions.ts";
import { DEFAULT_PUSH_SUBJECT, VapidKeys } from "../push/vapid-keys.ts";
import { PushSubscriptionRepository } from "../store/push-subscription-repository.ts";
import { SessionRepository } from "../store/session-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { projectsModule } from "./projects-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** What tests shorten: the retries' waits, a request's timeout. */
export type PushTuning = Partial<PushDeliveryTimings>;

/** A turn that ran this long pushes `turn` when it ends, unless config.json says `pushLongTurnSeconds`. */
const LONG_TURN_SECONDS = 60;

/**
 * Web Push: browsers (a phone's console) subscribe, and are told when a session needs its user (a
 * question, a plan to approve, a long turn's end, a failure). It publishes no events: a subscription
 * is its token's own, and the event stream is everyone's.
 */
export const pushModule = defineModule({
  name: "push",
  features: MODULE_FEATURES.push,
  eventKinds: {},
  create: ({ store, paths, logger, tokens, clock, config, modules }, tuning: PushTuning | undefined) => {
    const { events, streams } = modules.get(coreModule);
    const { projects } = modules.get(projectsModule);
    const repository = new PushSubscriptionRepository(store);
    const sessions = new SessionRepository(store);
    const vapid = new VapidKeys(paths.vapidKeys, logger);
    const subscriptions = new PushSubscriptions({ store, repository, clock });
    const delivery = new PushDelivery({
      ...DEFAULT_DELIVERY_TIMINGS,
      ...Object.fromEntries(Object.entries(tuning ?? {}).filter(([, value]) => value !== undefined)),
      store,
      repository,
      vapid,
      subject: config.pushSubject ?? DEFAULT_PUSH_SUBJECT,
      clock,
      logger,
    });
    const notifier = new PushNotifier({
      events,
      reader: new NoticeReader({ longTurnMs: (config.pushLongTurnSeconds ?? LONG_TURN_SECONDS) * 1000, now: () => clock.now() }),
      repository,
      delivery,
      isWatching: (tokenName, sessionId) => streams.isWatching(tokenName, sessionId),
      describe: (sessionId) => {
        const session = sessions.get(sessionId);
        if (!session) return undefined;
        let projectName: string | undefined;
        try {
          projectName = projects.get(session.projectId).name;
        } catch {
          // the project is being deleted with its sessions
        }
        return { projectId: session.projectId, projectName, title: session.title };
      },
      logger,
    });
    // Listening from the start: a question asked while the server still starts up is pushed too.
    notifier.start();
    return {
      routes: pushRoutes(subscriptions, async () => (await vapid.keys()).publicKey, tokens),
      stop: () => notifier.stop(),
    };
  },
});

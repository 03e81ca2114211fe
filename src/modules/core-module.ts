import type { ConfigFile } from "../config/config.ts";
import { EventCompactor, defaultCompactionTuning, type CompactionTuning, type RetentionPolicy } from "../events/event-compactor.ts";
import { EventLog } from "../events/event-log.ts";
import { EventStreamHub, defaultStreamLimits, type EventStreamLimits } from "../events/event-stream-hub.ts";
import { eventRoutes } from "../http/routes/event-routes.ts";
import { RevocationWatch } from "../auth/revocation-watch.ts";
import { ChildProcesses } from "../process/child-processes.ts";
import { ConversationRepository } from "../store/conversation-repository.ts";
import { EventRepository } from "../store/event-repository.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** What tests shorten or bound: the streams' limits, compaction's times, the deltas' write-behind. */
export interface CoreTuning {
  streamLimits?: Partial<EventStreamLimits>;
  compaction?: Partial<CompactionTuning>;
  /** How long a streamed reply's deltas wait to be stored together. */
  writeBehindMs?: number;
}

/**
 * What the server itself offers, whatever modules it runs: the event log (which takes the kinds the
 * other modules declare), its streams and its compaction, and the registry of every child process
 * a module starts. Built before the other modules, which reach it as `modules.get(coreModule)`.
 */
export const coreModule = defineModule({
  name: "core",
  features: MODULE_FEATURES.core,
  eventKinds: {},
  create: ({ store, identity, logger, paths, clock, config, tokens }, tuning: CoreTuning | undefined) => {
    const repository = new EventRepository(store);
    const events = new EventLog(store, repository, identity.serverId, clock, { writeBehindMs: tuning?.writeBehindMs });
    const streamLimits = { ...defaultStreamLimits, ...tuning?.streamLimits };
    // One watch, so event streams and terminals' sockets of a revoked token end at the same look.
    const revocations = new RevocationWatch(streamLimits.authorizationCheckMs);
    const streams = new EventStreamHub(events, logger, streamLimits, revocations);
    const retention = eventRetention(config);
    const compaction = { ...compactionTimes(config), ...tuning?.compaction };
    const conversation = new ConversationRepository(store);
    const compactor = new EventCompactor({ store, events: repository, conversation, log: events, clock, logger, policy: retention, tuning: compaction });
    const children = new ChildProcesses(paths.children, logger);
    // Agents and probes a killed server left running belong to nothing any more.
    children.reapOrphans();
    return {
      events,
      streams,
      revocations,
      compactor,
      retention,
      children,
      routes: eventRoutes(events, streams, tokens),
      start: () => compactor.start(),
      // Last, after every other module stopped its own: whatever a module left running.
      stop: () => children.stopAll(),
    };
  },
});

const DAY_MS = 86_400_000;

/** config.json's retention: 30 days and 512 MB unless it says otherwise. */
function eventRetention(config: ConfigFile): RetentionPolicy {
  return { retentionMs: (config.eventRetentionDays ?? 30) * DAY_MS, maxBytes: (config.eventLogMaxMB ?? 512) * 1024 * 1024 };
}

/** config.json's compaction interval (an hour by default); the first pass a minute after the start, or sooner. */
function compactionTimes(config: ConfigFile): Partial<CompactionTuning> {
  if (config.eventCompactionMinutes === undefined) return {};
  const intervalMs = config.eventCompactionMinutes * 60_000;
  return { intervalMs, firstPassMs: Math.min(intervalMs, defaultCompactionTuning.firstPassMs) };
}

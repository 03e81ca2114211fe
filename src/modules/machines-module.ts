import { hostname } from "node:os";
import { machineRoutes } from "../http/routes/machine-routes.ts";
import { MachineService, peerUrl, type MachineTiming } from "../machines/machine-service.ts";
import { MachineEvents } from "../schemas/machines.ts";
import type { SyncEvents } from "../schemas/sync.ts";
import { MachineRepository } from "../store/machine-repository.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { syncModule } from "./sync-module.ts";
import type { Static } from "@sinclair/typebox";
import { MODULE_FEATURES } from "./module-features.ts";
import { projectsModule } from "./projects-module.ts";
import { sessionsModule } from "./sessions-module.ts";
import { sessionMoveRoutes } from "../http/routes/session-move-routes.ts";
import { SessionMoves } from "../sessions/session-moves.ts";
import { SessionRecords } from "../sessions/session-records.ts";
import { ConversationRepository } from "../store/conversation-repository.ts";
import { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import { SessionMoveRepository } from "../store/session-move-repository.ts";
import { TranscriptRepository } from "../store/transcript-repository.ts";

const TIMING: MachineTiming = { heartbeatMs: 30_000, maxBackoffMs: 5 * 60_000, requestTimeoutMs: 5_000, pairTimeoutMs: 10_000 };
/** An unfinished session move asks the other machine again this often; its copy may take this long to arrive. */
const MOVE_TIMING = { moveRetryMs: 30_000, moveCopyTimeoutMs: 10 * 60_000 };

export type MachinesTuning = Partial<MachineTiming & typeof MOVE_TIMING>;

const osName = (platform: NodeJS.Platform): string => (platform === "win32" ? "windows" : platform);

/** The machines of one account: pairing, their list and presence, and keeping sync namespaces in step between them. */
export const machinesModule = defineModule({
  name: "machines",
  features: MODULE_FEATURES.machines,
  eventKinds: MachineEvents,
  create: ({ store, clock, logger, tokens, identity, config, server, modules }, tuning: MachinesTuning | undefined) => {
    const { events } = modules.get(coreModule);
    const { moveRetryMs, moveCopyTimeoutMs, ...peerTiming } = { ...TIMING, ...MOVE_TIMING, ...tuning };
    const sync = modules.get(syncModule).sync;
    const machines = new MachineService({
      store,
      repository: new MachineRepository(store),
      tokens,
      events,
      sync,
      clock,
      logger,
      timing: peerTiming,
      self: {
        id: identity.machineId,
        name: config.machineName ?? hostname(),
        os: osName(process.platform),
        // A peer is told the first address it can reach (publicUrl leads when set), never a wildcard.
        url: config.publicUrl ? peerUrl(config.publicUrl, `config.json "publicUrl"`) : (server.reachableUrls()[0] ?? server.url),
      },
    });
    events.subscribe((event) => {
      if (event.record.kind !== "sync.changed") return;
      const { namespace, keys } = event.record.payload as Static<(typeof SyncEvents)["sync.changed"]>;
      machines.changedHere(namespace, keys);
    });
    const { sessions, repository: sessionStore } = modules.get(sessionsModule);
    const moves = new SessionMoves({
      store,
      sessions: sessionStore,
      records: new SessionRecords(store, sessionStore, events, identity.serverId, () => new Date(clock.now())),
      conversation: new ConversationRepository(store),
      transcript: new TranscriptRepository(store),
      queue: new PromptQueueRepository(store),
      moves: new SessionMoveRepository(store),
      ...modules.get(projectsModule),
      peers: {
        selfId: identity.machineId,
        selfName: machines.list().machines[0]!.name,
        peerName: (machineId) => machines.peerName(machineId),
        call: (machineId, call) => machines.callMachine(machineId, call),
      },
      clock,
      logger,
      isTurnRunning: (sessionId) => sessions.busySessions().includes(sessionId),
      release: (sessionId) => sessions.release(sessionId),
      startNext: (sessionId) => sessions.prompts.startNext(sessionId),
      retryMs: moveRetryMs,
      copyTimeoutMs: moveCopyTimeoutMs,
      stopAt: process.env.ATRIUM_TEST_MOVE_STOP_AT,
    });
    return {
      machines,
      routes: [...machineRoutes(machines), ...sessionMoveRoutes(moves, machines)],
      start: () => {
        machines.start();
        return moves.start();
      },
      stop: () => {
        moves.stop();
        return machines.stop();
      },
    };
  },
});

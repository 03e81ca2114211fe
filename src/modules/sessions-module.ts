import { sessionMcpGrant } from "../mcp/session-mcp-servers.ts";
import { sessionChangeRoutes } from "../http/routes/change-routes.ts";
import { SessionChanges } from "../sessions/session-changes.ts";
import { gitRoutes } from "../http/routes/git-routes.ts";
import { worktreeMergeRoutes } from "../http/routes/worktree-merge-routes.ts";
import { SessionWorktreeMerge } from "../sessions/session-worktree-merge.ts";
import { SessionParams, sessionRoutes } from "../http/routes/session-routes.ts";
import { scheduleRoutes } from "../http/routes/schedule-routes.ts";
import { SessionEvents } from "../schemas/sessions.ts";
import type { AgentChannelFactory } from "../sessions/acp/agent-channel.ts";
import { SessionService } from "../sessions/session-service.ts";
import type { SessionTimings } from "../sessions/session-timings.ts";
import { ConversationRepository } from "../store/conversation-repository.ts";
import { PromptQueueRepository } from "../store/prompt-queue-repository.ts";
import { ScheduleRepository } from "../store/schedule-repository.ts";
import { SessionMoveRepository } from "../store/session-move-repository.ts";
import { SessionRepository } from "../store/session-repository.ts";
import { SessionSearchRepository } from "../store/session-search-repository.ts";
import { TranscriptRepository } from "../store/transcript-repository.ts";
import { filesModule } from "./files-module.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { mcpsModule } from "./mcps-module.ts";
import { pluginsModule } from "./plugins-module.ts";
import { coreModule } from "./core-module.ts";
import { defineModule } from "./module.ts";
import { projectsModule } from "./projects-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** What tests shorten (`idleStopMs` comes from config, `agentIdleMinutes`), and agents they run in their own process. */
export type SessionTuning = Partial<Omit<SessionTimings, "idleStopMs" | "deltaFlushMs">> & { openAgentChannel?: AgentChannelFactory };

const DEFAULT_TIMINGS: SessionTimings = {
  initializeTimeoutMs: 30_000,
  idleStopMs: 30 * 60_000,
  deltaFlushMs: 25,
  cancelGraceMs: 2_000,
  silenceNoticeMs: 15_000,
  writeFailureLimitMs: 30_000,
};

/** Agent sessions: their queues, conversations and the agent process each one runs. */
export const sessionsModule = defineModule({
  name: "sessions",
  features: MODULE_FEATURES.sessions,
  eventKinds: SessionEvents,
  create: (context, tuning: SessionTuning | undefined) => {
    const { store, logger, modules, config } = context;
    const { events, children } = modules.get(coreModule);
    const { projects, worktrees, changes, edits, reads, pullRequests } = modules.get(projectsModule);
    const sessionChanges = new SessionChanges(new SessionRepository(store), changes);
    const { mcps } = modules.get(mcpsModule);
    const { toolServer } = modules.get(pluginsModule);
    const idleStopMs = config.agentIdleMinutes === undefined ? DEFAULT_TIMINGS.idleStopMs : config.agentIdleMinutes * 60_000;
    // One repository for every writer of sessions: the list's cached pages are kept by its revision.
    const repository = new SessionRepository(store);
    const sessions = new SessionService({
      store,
      sessions: repository,
      search: new SessionSearchRepository(store),
      conversation: new ConversationRepository(store),
      transcript: new TranscriptRepository(store),
      files: modules.get(filesModule).files,
      queue: new PromptQueueRepository(store),
      schedules: new ScheduleRepository(store),
      events,
      harnesses: modules.get(harnessesModule).harnesses,
      projects,
      worktrees,
      logger,
      serverId: context.identity.serverId,
      timings: { ...DEFAULT_TIMINGS, idleStopMs, ...timingsOf(tuning) },
      clock: context.clock,
      children,
      openAgentChannel: tuning?.openAgentChannel,
      mcpServers: async (sessionId, capabilities, caveat) => {
        const pluginTools = toolServer.serverFor(sessionId, context.server.url);
        return sessionMcpGrant([...(await mcps.reachable()), ...(pluginTools ? [pluginTools] : [])], capabilities, caveat);
      },
    });
    const moves = new SessionMoveRepository(store);
    // A project deleted takes its sessions with it, and everything recorded under them.
    projects.beforeDeleting((projectId) => sessions.removeAllOf(projectId));
    return {
      sessions,
      repository,
      routes: [
        ...sessionRoutes(sessions),
        ...scheduleRoutes(sessions.schedules),
        ...sessionChangeRoutes(sessionChanges),
        ...worktreeMergeRoutes(new SessionWorktreeMerge({ sessions: new SessionRepository(store), worktrees, edits })),
        ...gitRoutes(
          {
            path: "/v1/sessions/:id",
            noun: "session's folder",
            tag: "sessions",
            params: SessionParams,
            folder: (params) => sessionChanges.folder(params.id),
            author: (params) => (prompt, timeoutMs) => sessions.ask(params.id, prompt, timeoutMs),
          },
          edits,
          reads,
          pullRequests,
        ),
      ],
      start: () => {
        sessions.recover();
        // Runs that came due while the server was down, after the queues it found have gone on.
        sessions.schedules.start();
        const orphans = sessions
          .removeOrphans()
          .then((count) => count > 0 && logger.info("deleted the sessions of projects that are gone", { count }))
          .catch((error: unknown) => logger.error("deleting the sessions of projects that are gone failed", { error }));
        const pruned = worktrees
          // A session arriving from another machine has its worktree before it is live here.
          .pruneOrphans((sessionId) => sessions.exists(sessionId) || moves.isStaged(sessionId))
          .then((count) => count > 0 && logger.info("pruned worktrees of sessions that no longer exist", { count }))
          .catch((error: unknown) => logger.error("pruning worktrees failed", { error }));
        return Promise.all([orphans, pruned]);
      },
      stop: () => {
        sessions.schedules.stop();
        return sessions.stopAll();
      },
    };
  },
});

/** The timings a test set (those it left undefined keep their defaults). */
function timingsOf(tuning: SessionTuning | undefined): Partial<SessionTimings> {
  const { openAgentChannel: _channel, ...timings } = tuning ?? {};
  return Object.fromEntries(Object.entries(timings).filter(([, value]) => value !== undefined));
}

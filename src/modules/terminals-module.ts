import { terminalRoutes } from "../http/routes/terminal-routes.ts";
import type { ConfigFile } from "../config/config.ts";
import { TerminalEvents } from "../schemas/terminals.ts";
import { ProjectFolders } from "../projects/project-folders.ts";
import { SessionRepository } from "../store/session-repository.ts";
import { TerminalService, type TerminalLimits } from "../terminals/terminal-service.ts";
import { CLIENT_BUFFER_BYTES } from "../terminals/terminal-socket.ts";
import { MAX_PENDING_INPUT_BYTES } from "../terminals/live-terminal.ts";
import { coreModule } from "./core-module.ts";
import { harnessesModule } from "./harnesses-module.ts";
import { defineModule } from "./module.ts";
import { projectsModule } from "./projects-module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** What tests replace: the shells' environment, and the bounds they reach quickly. */
export interface TerminalTuning {
  /** The environment shells start with; the server's own by default. */
  env?: Record<string, string | undefined>;
  limits?: Partial<TerminalLimits>;
}

/** An exited terminal (its state, exit code and last output) stays this long. */
const EXITED_RETENTION_MS = 10 * 60_000;
/** At most this many exited terminals stay (each with up to 256 KiB of output); the one that exited first goes first. */
const MAX_EXITED_TERMINALS = 64;
/** After SIGHUP, what still runs of an ended terminal gets SIGKILL after this. */
const END_GRACE_MS = 2000;
const DEFAULT_MAX_TERMINALS = 16;

/** Why terminals are refused: a shell's keystrokes and screen would cross the network in clear text. */
function plainTextRefusal(config: ConfigFile, plainTextBeyondLoopback: boolean): string | undefined {
  if (!plainTextBeyondLoopback || config.terminalsOverPlainHttp === true) return undefined;
  return (
    "terminals are off: this server listens beyond loopback without TLS, so a shell's keystrokes and output would cross the " +
    'network in clear text; serve https (config.json\'s "tls"), or set "terminalsOverPlainHttp": true in config.json to accept that'
  );
}

/** Terminals: shells on pseudo-terminals in a project's folders, attached to over WebSockets. */
export const terminalsModule = defineModule({
  name: "terminals",
  features: MODULE_FEATURES.terminals,
  eventKinds: TerminalEvents,
  create: ({ store, logger, clock, config, server, tokens, modules }, tuning: TerminalTuning | undefined) => {
    const { events, children, revocations } = modules.get(coreModule);
    const { projects, worktrees } = modules.get(projectsModule);
    const terminals = new TerminalService({
      store,
      events,
      clock,
      logger,
      revocations,
      children,
      folders: new ProjectFolders({ projects, worktrees, sessions: new SessionRepository(store) }),
      env: tuning?.env ?? process.env,
      limits: {
        maxTerminals: config.maxTerminals ?? DEFAULT_MAX_TERMINALS,
        exitedRetentionMs: EXITED_RETENTION_MS,
        maxExitedTerminals: MAX_EXITED_TERMINALS,
        clientBufferBytes: CLIENT_BUFFER_BYTES,
        endGraceMs: END_GRACE_MS,
        maxPendingInputBytes: MAX_PENDING_INPUT_BYTES,
        ...tuning?.limits,
      },
      refusal: plainTextRefusal(config, server.plainTextBeyondLoopback),
    });
    // A deleted project or session takes its terminals with it.
    projects.beforeDeleting((projectId) => terminals.endAllOf(projectId));
    const unsubscribe = events.subscribe(({ record }) => {
      if (record.kind === "session.deleted") void terminals.endSessionTerminals(record.subjectId);
    });
    return {
      terminals,
      routes: terminalRoutes(terminals, modules.get(harnessesModule).terminals, tokens),
      stop: () => {
        unsubscribe();
        return terminals.stopAll();
      },
    };
  },
});

import { homedir } from "node:os";
import type { HarnessService } from "../harness/harness-service.ts";
import { readJson } from "../harness/detection.ts";
import type { ChildProcesses } from "../process/child-processes.ts";
import type { StoredSession } from "../store/session-repository.ts";
import { chooseAuthMethod } from "./acp/auth-methods.ts";
import type { SessionLaunch } from "./session-agent.ts";
import type { AgentChannelFactory } from "./acp/agent-channel.ts";
import type { McpServersFor } from "./agent-connection.ts";

/**
 * How a session's agent is started: its harness's ACP command in the session's folder, with the
 * environment of the session's account, recorded as a child of the server, and signing in with the
 * ACP method that account's credentials fit.
 */
export function sessionLaunch(
  session: StoredSession,
  deps: {
    harnesses: HarnessService;
    children: ChildProcesses;
    initializeTimeoutMs: number;
    openAgentChannel?: AgentChannelFactory;
    mcpServers: McpServersFor;
  },
): SessionLaunch {
  const spec = deps.harnesses.launchSpec(session.harnessId, session.harnessAccountId);
  const { definition, env } = spec;
  const context = { env, home: env.HOME ?? homedir(), readJson };
  return {
    command: definition.acpCommand,
    cwd: session.cwd,
    env,
    initializeTimeoutMs: deps.initializeTimeoutMs,
    children: deps.children,
    openChannel: deps.openAgentChannel,
    harnessName: definition.name,
    quirks: definition.quirks ?? {},
    noClientFileReads: definition.quirks?.readsFilesItself === true,
    loginInstruction: spec.loginInstruction,
    mcpServers: (capabilities) =>
      deps.mcpServers(session.id, capabilities, (transport) => definition.mcpCaveat?.({ env, home: context.home, cwd: session.cwd, transport })),
    chooseAuthMethod: (offered) => chooseAuthMethod(offered, env, (ids) => definition.acpAuthMethod?.(ids, context)),
  };
}

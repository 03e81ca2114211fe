import type * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "../logging/logger.ts";
import type { McpCaveat, SessionMcpGrant } from "../mcp/session-mcp-servers.ts";
import type { SessionMcpServer } from "../schemas/mcps.ts";
import type { ConfigOption } from "../schemas/sessions.ts";
import { AgentProcess, type AgentClientHandlers, type AgentLaunch } from "./acp/agent-process.ts";
import { ACP_AUTH_REQUIRED, describeAgentError } from "./acp/agent-errors.ts";
import { agentConfigOptions, LEGACY_MODE_ID, LEGACY_MODEL_ID } from "./acp-mapping.ts";

export interface AgentConnectionRequest {
  launch: AgentLaunch;
  handlers: AgentClientHandlers;
  /** Which of the agent's `authenticate` methods fits the account's credentials, if any. */
  chooseAuthMethod: (offered: acp.AuthMethod[]) => string | undefined;
  /** The agent's session to load, when the session ran before (on this or an earlier process). */
  agentSessionId: string | null;
  /**
   * With no session of its own yet: the agent session to fork with `session/fork` where the agent
   * advertises it (a fork of a whole conversation on the same harness); else it begins a new one.
   */
  forkOf: string | null;
  cwd: string;
  /** The user's selections, re-applied in this order wherever the agent runs something else. */
  selections: Record<string, string>;
  /** After a load the agent may run another model than it reports (its harness's `modelUnsureAfterLoad`): the model is set again. */
  modelUnsureAfterLoad: boolean;
  /** Told when loading starts and ends: what the agent replays meanwhile is history, not a reply. */
  onLoading: (loading: boolean) => void;
  /** The MCP servers to give the agent, in the forms its capabilities take. */
  mcpServers: SessionMcpServers;
  /** Stopping the session while the agent starts ends the start and the process at once. */
  signal: AbortSignal;
  logger: Logger;
}

/**
 * After `session/load` answers, updates go on counting as replayed history until the agent has been
 * quiet this long (Gemini CLI streams its history without awaiting it), for at most HISTORY_WAIT_MAX_MS.
 */
const HISTORY_QUIET_MS = 150;
const HISTORY_WAIT_MAX_MS = 3_000;

/** What opening the agent's session found that the session should remember. */
export interface OpenedAgentSession {
  connection: AgentConnection;
  /** Selections the agent refused (configId → value), to retry on its next start. */
  refused: Record<string, string>;
  /** The agent began a new session (none was stored, or it could not load it) rather than loading one. */
  began: boolean;
  /** The agent began a new session with no memory of the conversation (its session could not be loaded, or it cannot load): what happened. */
  notice: string | null;
  /** The new session is a fork of `forkOf` (`session/fork`): it carries the conversation. */
  forked: boolean;
  /** The MCP servers the agent was given, or why each was left out. */
  mcpServers: SessionMcpServer[];
}

/** The MCP servers for an agent with these capabilities. */
export type SessionMcpServers = (capabilities: acp.McpCapabilities | undefined) => Promise<SessionMcpGrant>;

/** The same, for any agent: `caveat` says why this agent will not use a server of a transport here (src/mcp/session-mcp-servers.ts). */
export type McpServersFor = (sessionId: string, capabilities: acp.McpCapabilities | undefined, caveat: McpCaveat) => ReturnType<SessionMcpServers>;

/**
 * One started agent process and the ACP session opened on it: signed in with the account's
 * credentials where the agent asks for it, the session loaded (or created when loading is impossible),
 * and the user's selections applied again. Config options are spoken in whichever dialect the agent
 * has: `configOptions`, or the older `modes` / `models` with `set_mode` / `set_model`.
 */
export class AgentConnection {
  /** The cost this process reported last (its own count, which starts at 0 with the process). */
  reportedCost = 0;

  private constructor(
    readonly agent: AgentProcess,
    readonly sessionId: string,
    /** The options as the agent last reported them; undefined when it never said. */
    private options: ConfigOption[] | undefined,
    /** The agent speaks the older modes/models, not config options. */
    private readonly legacy: boolean,
  ) {}

  static async open(request: AgentConnectionRequest): Promise<OpenedAgentSession> {
    const { signal } = request;
    const agent = await AgentProcess.start(request.launch, request.handlers, signal);
    try {
      await AgentConnection.authenticate(agent, request);
      const opened = await AgentConnection.openSession(agent, request);
      const connection = new AgentConnection(agent, opened.sessionId, opened.options?.options, opened.options?.legacy ?? false);
      const loaded = !opened.began;
      const setAgain = new Set(loaded && request.modelUnsureAfterLoad ? connection.modelOptionIds() : []);
      const refused = await connection.reapply(request.selections, setAgain, request.logger);
      if (signal.aborted) throw new Error("the session was stopped while its agent started");
      return { connection, refused, began: opened.began, notice: opened.notice, forked: opened.forked, mcpServers: opened.mcpServers };
    } catch (error) {
      agent.stop();
      throw error;
    }
  }

  /** Signs in with the method the account's credentials fit; an agent that needs none is not asked. */
  private static async authenticate(agent: AgentProcess, request: AgentConnectionRequest): Promise<void> {
    const methodId = request.chooseAuthMethod(agent.authMethods);
    if (!methodId) return;
    try {
      await agent.authenticate(methodId);
    } catch (error) {
      // The session request that follows fails with the agent's own words on what is missing.
      request.logger.warn("the agent refused the sign-in", { methodId, error: describeAgentError(error) });
    }
  }

  private static async openSession(
    agent: AgentProcess,
    request: AgentConnectionRequest,
  ): Promise<{
    sessionId: string;
    options: ReturnType<typeof agentConfigOptions>;
    began: boolean;
    notice: string | null;
    forked: boolean;
    mcpServers: SessionMcpServer[];
  }> {
    const { servers: mcpServers, record } = await request.mcpServers(agent.capabilities.mcpCapabilities);
    let notice: string | null = null;
    if (request.agentSessionId && agent.capabilities.loadSession) {
      request.onLoading(true);
      try {
        const loaded = await agent.loadSession({ sessionId: request.agentSessionId, cwd: request.cwd, mcpServers });
        // What it replays after its answer is history too: the prompt waits until that has come.
        await agent.updatesSettled(HISTORY_QUIET_MS, HISTORY_WAIT_MAX_MS);
        return { sessionId: request.agentSessionId, options: agentConfigOptions(loaded), began: false, notice, forked: false, mcpServers: record };
      } catch (error) {
        if ((error as { code?: unknown }).code === ACP_AUTH_REQUIRED) throw error;
        // The agent no longer has it (it keeps only sessions that got an answer, or its files were
        // removed): the conversation stays in Atrium, which hands it to the new session.
        notice = `the agent could not load its earlier session (${describeAgentError(error)})`;
        request.logger.info("the agent could not load its session; starting a new one", {
          agentSessionId: request.agentSessionId,
          error: describeAgentError(error),
        });
      } finally {
        request.onLoading(false);
      }
    } else if (request.agentSessionId) notice = "the agent cannot load an earlier session (it does not offer session/load)";
    else if (request.forkOf && agent.canFork) {
      try {
        const forked = await agent.forkSession({ sessionId: request.forkOf, cwd: request.cwd, mcpServers });
        return { sessionId: forked.sessionId, options: agentConfigOptions(forked), began: true, notice, forked: true, mcpServers: record };
      } catch (error) {
        if ((error as { code?: unknown }).code === ACP_AUTH_REQUIRED) throw error;
        // Atrium hands the conversation over instead.
        request.logger.info("the agent could not fork the session; starting a new one", { forkOf: request.forkOf, error: describeAgentError(error) });
      }
    }
    const created = await agent.newSession({ cwd: request.cwd, mcpServers });
    return { sessionId: created.sessionId, options: agentConfigOptions(created), began: true, notice, forked: false, mcpServers: record };
  }

  /** The agent's options as it last reported them (undefined when it never said). */
  get configOptions(): ConfigOption[] | undefined {
    return this.options;
  }

  /** Sets one option on the agent and returns all options as the agent now reports them. */
  async set(configId: string, value: string): Promise<ConfigOption[]> {
    if (!this.legacy) {
      const answer = await this.agent.setConfigOption({ sessionId: this.sessionId, configId, value });
      this.options = agentConfigOptions(answer)?.options ?? this.options;
      return this.options ?? [];
    }
    if (configId === LEGACY_MODE_ID) await this.agent.setMode({ sessionId: this.sessionId, modeId: value });
    else if (configId === LEGACY_MODEL_ID) await this.agent.setModel(this.sessionId, value);
    else throw new Error(`the agent has no option ${configId}`);
    // The older methods answer nothing: the choice they accepted is the one now in force.
    this.options = (this.options ?? []).map((option) => (option.id === configId ? { ...option, currentValue: value } : option));
    return this.options;
  }

  /** A mode change the agent announced itself (`current_mode_update`). */
  noteModeChange(modeId: string): ConfigOption[] {
    this.options = (this.options ?? []).map((option) => (option.category === "mode" ? { ...option, currentValue: modeId } : option));
    return this.options;
  }

  /** New options the agent announced itself (`config_option_update`). */
  noteOptions(options: ConfigOption[]): void {
    this.options = options;
  }

  /** The ids of the agent's model options. */
  private modelOptionIds(): string[] {
    return (this.options ?? []).flatMap((option) => (option.category === "model" ? [option.id] : []));
  }

  /**
   * Applies each selection the agent does not already run, in order, comparing against what the agent
   * reports after each change (a new model may reset its effort); those in `setAgain` are applied even
   * where the agent reports them. Returns the ones it refused.
   */
  private async reapply(selections: Record<string, string>, setAgain: Set<string>, logger: Logger): Promise<Record<string, string>> {
    const refused: Record<string, string> = {};
    for (const [configId, value] of Object.entries(selections)) {
      const current = this.options?.find((option) => option.id === configId);
      if (this.options && (!current || (current.currentValue === value && !setAgain.has(configId)))) {
        if (!current) refused[configId] = value;
        continue;
      }
      try {
        await this.set(configId, value);
      } catch (error) {
        logger.info("the agent did not accept a config selection", { configId, error: describeAgentError(error) });
        refused[configId] = value;
      }
    }
    return refused;
  }

  stop(): void {
    this.agent.stop();
  }

  stopGently(graceMs: number): Promise<void> {
    return this.agent.stopGently(graceMs);
  }
}

import type * as acp from "@agentclientprotocol/sdk";
import type { Clock } from "../clock.ts";
import { AcpRefusal } from "./acp/acp-refusal.ts";
import type { AgentProcess } from "./acp/agent-process.ts";
import { describeAgentError } from "./acp/agent-errors.ts";

/** A one-off question to a session's agent, outside the user's conversation. */
export interface AsideQuestion {
  text: string;
  /** The folder the one-off ACP session opens in: the session's. */
  cwd: string;
  /** No answer within this long ends the question with an error (and the one-off session with it). */
  timeoutMs: number;
}

/**
 * One-off ACP sessions on a session's agent process, beside the user's own (ACP allows several per
 * connection): a question asked in a new session (`session/new`, no MCP servers), its reply collected,
 * then the session cancelled and closed where the agent offers `session/close`. Nothing of it reaches
 * the user's conversation: every update and request names its ACP session, and any that does not name
 * the user's once that is open belongs here. The agent may read files but not act: a permission it asks
 * for is rejected, a form declined, writes and commands refused.
 */
export class AsideSessions {
  /** The reply each open one-off session has streamed so far. */
  private readonly replies = new Map<string, string>();

  constructor(
    /** The ACP session of the user's conversation, once the agent has opened it. */
    private readonly userSessionId: () => string | undefined,
    private readonly clock: Clock,
  ) {}

  /** Whether this ACP session is not the user's conversation (a one-off one, open or ended). */
  isAside(sessionId: string): boolean {
    const user = this.userSessionId();
    return this.replies.has(sessionId) || (user !== undefined && sessionId !== user);
  }

  /** Whether a request scoped to a session (a form; one scoped to a request names none) is a one-off session's. */
  scopes(request: object): boolean {
    const { sessionId } = request as { sessionId?: unknown };
    return typeof sessionId === "string" && this.isAside(sessionId);
  }

  /** Keeps the text of a one-off session's reply; its other updates (tools, usage, commands) are dropped. */
  update({ sessionId, update }: acp.SessionNotification): void {
    const reply = this.replies.get(sessionId);
    if (reply !== undefined && update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
      this.replies.set(sessionId, reply + update.content.text);
  }

  /** A permission asked in a one-off session: rejected (its reject option, else cancelled). */
  refusePermission(request: acp.RequestPermissionRequest): acp.RequestPermissionResponse {
    const reject = request.options.find((option) => option.kind === "reject_once") ?? request.options.find((option) => option.kind === "reject_always");
    return { outcome: reject ? { outcome: "selected", optionId: reject.optionId } : { outcome: "cancelled" } };
  }

  /** A write or a command asked for in a one-off session is refused. */
  refuseAction(sessionId: string, what: string): void {
    if (this.isAside(sessionId)) throw new AcpRefusal("invalidParams", `a one-off question to the agent may not ${what}`);
  }

  /**
   * Asks the agent (once it has started: the timeout counts its start) in a new session of its own; its
   * reply's text, or an error (a start or turn that failed or was cut off, the timeout).
   */
  async ask(started: Promise<AgentProcess>, question: AsideQuestion): Promise<string> {
    let timer: ReturnType<Clock["setTimeout"]> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => reject(new Error(`the agent did not answer within ${question.timeoutMs / 1000} s`)), question.timeoutMs);
    });
    timedOut.catch(() => undefined);
    started.catch(() => undefined);
    let agent: AgentProcess | undefined;
    let sessionId: string | undefined;
    let ended = false;
    try {
      agent = await Promise.race([started, timedOut]);
      const created = agent.newSession({ cwd: question.cwd, mcpServers: [] });
      created.catch(() => undefined);
      ({ sessionId } = await Promise.race([created, timedOut]));
      this.replies.set(sessionId, "");
      const prompt = agent.prompt({ sessionId, prompt: [{ type: "text", text: question.text }] });
      prompt.catch(() => undefined);
      const { stopReason } = await Promise.race([prompt, timedOut]);
      ended = true;
      if (stopReason !== "end_turn") throw new Error(`the agent ended its answer early (${stopReason})`);
      return this.replies.get(sessionId) ?? "";
    } catch (error) {
      throw new Error(describeAgentError(error));
    } finally {
      this.clock.clearTimeout(timer);
      if (agent && sessionId !== undefined) this.end(agent, sessionId, ended);
    }
  }

  /** Ends a one-off session: cancelled if its turn still runs, closed where the agent offers it; the answer does not wait for either. */
  private end(agent: AgentProcess, sessionId: string, ended: boolean): void {
    this.replies.delete(sessionId);
    if (!agent.isRunning) return;
    if (!ended) agent.cancel(sessionId).catch(() => undefined);
    if (agent.canClose) agent.closeSession(sessionId).catch(() => undefined);
  }
}

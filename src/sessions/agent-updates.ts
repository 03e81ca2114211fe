import type * as acp from "@agentclientprotocol/sdk";
import type { ConfigOption } from "../schemas/sessions.ts";
import type { StoredSession } from "../store/session-repository.ts";
import { SessionRecords } from "./session-records.ts";
import type { SessionAgent } from "./session-agent.ts";
import type { Turn } from "./turn.ts";
import {
  addTokens,
  applyUsage,
  toAvailableCommands,
  configSelectionsOf,
  perCallTokens,
  turnTokens,
  type ReportedTokens,
  isPlanMode,
  toConfigOptions,
} from "./acp-mapping.ts";
import { terminalIdsOf } from "./transcript-mapping.ts";

/** What agent updates touch of the turn in flight. */
export type UpdatedTurn = Pick<Turn, "live" | "reply" | "tokens" | "silence">;

export interface AgentUpdatesDeps {
  sessionId: string;
  records: SessionRecords;
  agent: SessionAgent;
  /** The turn in flight, if any. */
  turn(): UpdatedTurn | undefined;
  closed(): boolean;
  /** Charges the active goal with the turn so far; true when that spent its budget. */
  chargeGoal(session: StoredSession): boolean;
  /** The goal's budget is spent: the turn in flight stops (its reply so far is kept). */
  budgetSpent(): void;
  /** The agent said something about itself during the turn (a fallback, a warning): the session's notice. */
  notice(text: string): void;
}

/**
 * Records what the agent tells a session (`session/update`, and the usage it answers a turn with):
 * reply text, thoughts and tool calls of the live turn, the plan, usage, the title, config options.
 * History a session/load replays, and anything outside a live turn that belongs to a reply, is left out.
 */
export class AgentUpdates {
  constructor(private readonly deps: AgentUpdatesDeps) {}

  /** Records one `session/update` of the agent's. */
  record(notification: acp.SessionNotification): void {
    if (this.deps.closed()) return;
    const update = notification.update;
    // What the agent streams outside a live turn (the history a session/load replays) is already stored.
    const inFlight = this.deps.turn();
    const turn = inFlight?.live && !this.deps.agent.isLoading ? inFlight : undefined;
    turn?.silence.heard();
    const callTokens = perCallTokens(update);
    if (turn && callTokens) this.recordCallTokens(turn, callTokens);
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (!turn || update.content.type !== "text") return;
        if (this.deps.agent.quirks.selfNotice?.test(update.content.text)) this.deps.notice(update.content.text);
        else turn.reply.appendText(update.content.text);
        return;
      case "agent_thought_chunk":
        if (turn && update.content.type === "text") turn.reply.appendThought(update.content.text);
        return;
      case "tool_call":
      case "tool_call_update":
        if (!turn) return;
        for (const terminalId of terminalIdsOf(update)) this.deps.agent.linkToolCall(terminalId, update.toolCallId);
        turn.reply.recordToolCall(update);
        return;
      case "plan":
        if (turn) this.recordPlan(turn, update);
        return;
      case "usage_update":
        this.recordUsage(turn, update);
        return;
      case "session_info_update":
        // A title the user gave stays; only then is there nothing to record.
        if (!update.title || this.deps.records.get(this.deps.sessionId).titleSource === "given") return;
        this.deps.turn()?.reply.flush();
        this.deps.records.update(this.deps.sessionId, (session) => {
          session.title = update.title!;
          session.titleSource = "agent";
        });
        return;
      case "config_option_update": {
        this.deps.turn()?.reply.flush();
        const options = toConfigOptions(update.configOptions);
        this.deps.agent.current?.noteOptions(options);
        this.recordConfig(options);
        return;
      }
      case "current_mode_update":
        this.deps.turn()?.reply.flush();
        this.recordConfig(this.deps.agent.current?.noteModeChange(update.currentModeId) ?? this.deps.records.get(this.deps.sessionId).configOptions);
        return;
      case "available_commands_update":
        this.recordCommands(update.availableCommands);
        return;
      default:
        // The user's own message echoed back: nothing the interface shows.
        return;
    }
  }

  /**
   * The slash commands, whenever the agent lists them (Claude sends them just after session/new and
   * session/load, outside any turn); the same list again (each start) changes nothing.
   */
  private recordCommands(commands: acp.AvailableCommand[]): void {
    const availableCommands = toAvailableCommands(commands);
    if (JSON.stringify(availableCommands) === JSON.stringify(this.deps.records.get(this.deps.sessionId).availableCommands ?? [])) return;
    this.deps.turn()?.reply.flush();
    this.deps.records.update(this.deps.sessionId, (session) => {
      session.availableCommands = availableCommands;
      this.deps.records.emit(this.deps.sessionId, "session.commands", { availableCommands });
    });
  }

  private recordPlan(turn: UpdatedTurn, update: acp.Plan): void {
    turn.reply.recordPlan(update.entries);
    this.deps.records.update(this.deps.sessionId, (session) => {
      session.plan = { entries: update.entries.map(({ content, priority, status }) => ({ content, priority, status })) };
      this.deps.records.emit(this.deps.sessionId, "session.plan", { plan: session.plan });
    });
  }

  /** The session's usage (and its cost), the turn's context, and an active goal charged with them. */
  private recordUsage(turn: UpdatedTurn | undefined, update: acp.UsageUpdate): void {
    this.deps.turn()?.reply.flush();
    let spent = false;
    const connection = this.deps.agent.current;
    const processCost = this.deps.agent.quirks.costPerProcess ? (connection?.reportedCost ?? 0) : undefined;
    this.deps.records.update(this.deps.sessionId, (session) => {
      session.usage = applyUsage(session.usage, update, processCost);
      this.deps.records.emit(this.deps.sessionId, "session.usage", { usage: session.usage });
      if (connection && update.cost) connection.reportedCost = update.cost.amount;
      turn?.tokens.noteContext(update.used);
      if (session.goal?.status !== "active") return;
      spent = this.deps.chargeGoal(session);
      this.deps.records.emit(this.deps.sessionId, "session.goal", { goal: session.goal });
    });
    // The budget is spent: the turn stops here (its reply so far is kept).
    if (spent) this.deps.budgetSpent();
  }

  recordConfig(options: ConfigOption[]): void {
    this.deps.records.update(this.deps.sessionId, (session) => this.applyConfig(session, options));
  }

  /** Stores the agent's options and current choices; leaving plan mode asks for plan approval. */
  applyConfig(session: StoredSession, options: ConfigOption[]): void {
    const wasPlanning = isPlanMode(session.configOptions);
    session.configOptions = options;
    session.configSelections = configSelectionsOf(options);
    for (const configId of Object.keys(session.unavailableConfigSelections)) {
      if (session.configSelections[configId] === session.unavailableConfigSelections[configId]) delete session.unavailableConfigSelections[configId];
    }
    if (wasPlanning && !isPlanMode(options) && this.deps.turn()) {
      session.pendingPlanApproval = true;
      session.sidebarState = "waiting";
      SessionRecords.attention(session);
    }
    this.deps.records.emit(this.deps.sessionId, "session.config", { configOptions: options, configSelections: session.configSelections });
  }

  /**
   * The turn's own token counts, as the agent reports them with its answer; left out when its model
   * calls were counted one by one already, or when the agent counts only the last call (OpenCode).
   */
  recordTurnUsage(response: acp.PromptResponse): void {
    const usage = turnTokens(response);
    const turn = this.deps.turn();
    if (!usage || turn?.tokens.countedPerCall || this.deps.agent.quirks.turnTokensOfLastCall) return;
    turn?.tokens.noteReported(usage.totalTokens ?? 0);
    this.addTokens(usage);
  }

  /** One model call's counts, as the agent reports them while the turn runs. */
  private recordCallTokens(turn: UpdatedTurn, tokens: ReportedTokens): void {
    turn.tokens.noteCall(tokens.totalTokens ?? 0);
    this.addTokens(tokens);
  }

  private addTokens(tokens: ReportedTokens): void {
    this.deps.turn()?.reply.flush();
    this.deps.records.update(this.deps.sessionId, (session) => {
      session.usage = addTokens(session.usage, tokens);
      this.deps.records.emit(this.deps.sessionId, "session.usage", { usage: session.usage });
    });
  }
}

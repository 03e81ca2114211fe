import { Type, type Static } from "@sinclair/typebox";
import { EventCursor, Nullable, Timestamp } from "./common.ts";
import { SessionMcpServer } from "./mcps.ts";
import { ScheduleEvents } from "./schedules.ts";
import { PermissionOptionKind, ToolCallDetails } from "./transcript.ts";

const StringMap = Type.Record(Type.String(), Type.String());

export const SidebarState = Type.Union([Type.Literal("idle"), Type.Literal("working"), Type.Literal("waiting"), Type.Literal("error")], {
  description: "`working`: a turn runs; `waiting`: the agent waits for the user (a question, a plan); `error`: the last turn failed.",
});

/** A token count summed over the session's turns: null until the agent reports one (a false 0 would say nothing was used). */
const TokenCount = Type.Union([Type.Number(), Type.Null()], { description: "Summed over the session's turns; null while the agent has reported no count." });

export const SessionUsage = Type.Object(
  {
    used: Type.Number({ description: "Context window tokens in use (the agent's usage_update)." }),
    size: Type.Number({ description: "Context window size; 0 when the agent has not said." }),
    inputTokens: TokenCount,
    cachedInputTokens: TokenCount,
    outputTokens: TokenCount,
    reasoningOutputTokens: TokenCount,
    totalTokens: Type.Union([Type.Number(), Type.Null()], {
      description: "Summed over the session's turns; null while the agent has reported no count (some adapters never do).",
    }),
    costAmount: Type.Union([Type.Number(), Type.Null()], {
      description: "The session's cost so far, as the agent reports it; it only grows (an agent's restart starts its own count again, which is added on).",
    }),
    costCurrency: Nullable(Type.String()),
    costKind: Nullable(Type.Union([Type.Literal("reported")], { description: "`reported`: the agent said so." })),
  },
  { $id: "SessionUsage" },
);
export type SessionUsage = Static<typeof SessionUsage>;

/** Where a session went, or is going, on a paired machine (POST /v1/sessions/{id}/move). */
export const SessionMove = Type.Object(
  {
    state: Type.Union([Type.Literal("moving"), Type.Literal("moved")], {
      description: "`moving`: being copied, prompts are refused until it is decided; `moved`: it continues on the other machine, and this one is closed.",
    }),
    machineId: Type.String(),
    machineName: Type.String(),
    sessionId: Type.String({ description: "The session on the other machine." }),
    at: Timestamp,
  },
  { $id: "SessionMove" },
);
export type SessionMove = Static<typeof SessionMove>;

export const Session = Type.Object(
  {
    id: Type.String(),
    projectId: Type.String(),
    serverId: Type.String(),
    harnessId: Type.String(),
    harnessAccountId: Nullable(Type.String()),
    agentSessionId: Nullable(Type.String({ description: "The agent's own session id, once it has started." })),
    title: Type.String(),
    origin: Type.Union([Type.Literal("service")]),
    worktreeName: Nullable(Type.String()),
    workspaceId: Nullable(Type.String({ description: "The project location the session runs in (or its worktree's)." })),
    cwd: Type.String(),
    configSelections: StringMap,
    unavailableConfigSelections: Type.Record(Type.String(), Type.String(), {
      description: "Selections the agent did not accept (configId → value), kept to retry on the next start.",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    sidebarState: SidebarState,
    sidebarStateChangedAt: Timestamp,
    usage: SessionUsage,
    latestAttentionSequence: Type.Integer(),
    lastSeenAttentionSequence: Type.Integer(),
    unreadCount: Type.Integer(),
    hasUnreadError: Type.Boolean(),
    actionRequired: Type.Boolean(),
    actionRequiredKind: Nullable(Type.Union([Type.Literal("question"), Type.Literal("plan_approval")])),
    pendingPlanApproval: Type.Boolean(),
    parentSessionId: Nullable(Type.String()),
    labels: StringMap,
    status: Nullable(Type.String({ description: "Why the session is as it is: the last error, a paused queue." })),
    queuePaused: Type.Boolean({ description: "Queued prompts wait (goal budget spent); the next prompt sent resumes the queue." }),
    archivedAt: Nullable(
      Type.String({
        format: "date-time",
        description: "When the user archived it: the list leaves it out unless asked for (`archived=true`); it works as before.",
      }),
    ),
    mcpServers: Type.Array(SessionMcpServer, {
      description: "The MCP servers made in Atrium and on here at the agent's last start: given to it, or left out with the reason.",
    }),
    move: Nullable(SessionMove),
  },
  { $id: "Session" },
);
export type Session = Static<typeof Session>;

/**
 * A session as a list shows it: all but `mcpServers`, which can be longer than the rest of the record
 * and is read with the session (its detail and its events carry it); in a search (`q`) whose words its
 * conversation holds, where they matched (`match`).
 */
export const SessionSearchMatch = Type.Object(
  {
    itemId: Type.String({ description: "The conversation item (a prompt or a reply) that matched best." }),
    snippet: Type.String({ description: "Plain text around the matched words, `…` where it was cut; not markup." }),
    highlights: Type.Array(
      Type.Object({
        start: Type.Integer({ minimum: 0 }),
        end: Type.Integer({ minimum: 0, description: "Exclusive." }),
      }),
      { description: "The matched words in `snippet`, in order, as UTF-16 offsets (JavaScript string indices)." },
    ),
  },
  { $id: "SessionSearchMatch" },
);
export type SessionSearchMatch = Static<typeof SessionSearchMatch>;

export const SessionListItem = Type.Object(
  {
    ...Type.Omit(Session, ["mcpServers"]).properties,
    match: Type.Optional(SessionSearchMatch),
  },
  { $id: "SessionListItem" },
);
export type SessionListItem = Static<typeof SessionListItem>;

export const Attachment = Type.Object(
  {
    fileId: Type.String(),
    name: Type.String(),
    mimeType: Type.String(),
    sizeBytes: Type.Number(),
    kind: Type.Union([Type.Literal("image"), Type.Literal("file")]),
  },
  { $id: "Attachment" },
);
export type Attachment = Static<typeof Attachment>;

export const UploadedFile = Type.Object(
  {
    fileId: Type.String(),
    name: Type.String(),
    mimeType: Type.String(),
    sizeBytes: Type.Number(),
    kind: Type.Union([Type.Literal("image"), Type.Literal("file")], {
      description: "`image` for PNG, JPEG, GIF and WebP: agents that accept images get them as images.",
    }),
    createdAt: Timestamp,
  },
  { $id: "UploadedFile" },
);
export type UploadedFile = Static<typeof UploadedFile>;

export const UploadFileBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: "The file's name as the user sees it." }),
  mimeType: Type.String({ pattern: "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$", maxLength: 200 }),
  contentBase64: Type.String({ pattern: "^[A-Za-z0-9+/]*={0,2}$", description: "The bytes, base64-encoded; at most 20 MiB decoded." }),
});

export const ConversationItem = Type.Object(
  {
    id: Type.String(),
    role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
    messageId: Nullable(Type.String()),
    text: Type.String(),
    createdAt: Timestamp,
    isGenerating: Type.Boolean(),
    attachments: Type.Array(Attachment),
    stopReason: Nullable(
      Type.String({ description: "How an assistant reply ended: end_turn, cancelled, max_tokens, refusal, error, interrupted (server restart)." }),
    ),
  },
  { $id: "ConversationItem" },
);
export type ConversationItem = Static<typeof ConversationItem>;

export const PromptMention = Type.Object(
  {
    path: Type.String({ description: "The file, relative to the session's folder (after symbolic links, inside it)." }),
    sizeBytes: Type.Number({ description: "Its size when the prompt was sent." }),
  },
  { $id: "PromptMention" },
);
export type PromptMention = Static<typeof PromptMention>;

export const QueuedPrompt = Type.Object(
  {
    id: Type.String(),
    sessionId: Type.String(),
    text: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    attachments: Type.Array(Attachment),
    mentions: Type.Optional(
      Type.Array(PromptMention, {
        description:
          "Files of the session's folder the prompt names (an @-mention); left out when none. Each reaches the agent as its text (embedded context) where its prompt capabilities take that and it is a text file up to 256 KiB, else as a resource link.",
      }),
    ),
    clientId: Nullable(Type.String()),
  },
  { $id: "QueuedPrompt" },
);
export type QueuedPrompt = Static<typeof QueuedPrompt>;

const Option = Type.Object({
  id: Type.String(),
  label: Type.String(),
  description: Nullable(Type.String()),
  kind: Type.Optional(PermissionOptionKind),
});

export const Question = Type.Object(
  {
    id: Type.String(),
    header: Type.String(),
    question: Type.String(),
    options: Type.Array(Option),
    multiSelect: Type.Boolean(),
    allowsOther: Type.Boolean(),
    isSecret: Type.Boolean({ description: "The answer is passed to the agent and never stored nor logged." }),
    backOptionLabel: Nullable(Type.String()),
    presentation: Type.Union([Type.Literal("browserChoice"), Type.Literal("text")]),
  },
  { $id: "Question" },
);
export type Question = Static<typeof Question>;

export const PendingQuestion = Type.Object(
  {
    sessionUpdate: Type.Literal("question"),
    questionId: Type.String(),
    message: Type.String(),
    questions: Type.Array(Question),
    autoResolutionMs: Nullable(Type.Number()),
    toolCall: Type.Optional(
      Type.Union([ToolCallDetails, Type.Null()], {
        description:
          "What a permission question asks about: the tool call as the reply's details keep it (its diff, command, locations); null for a question that is not about a tool call.",
      }),
    ),
  },
  { $id: "PendingQuestion" },
);
export type PendingQuestion = Static<typeof PendingQuestion>;

export const BackgroundTask = Type.Object(
  {
    id: Type.String(),
    description: Type.String(),
    status: Type.Union([Type.Literal("running"), Type.Literal("exited"), Type.Literal("killed")]),
    taskType: Type.Literal("terminal"),
    toolUseId: Nullable(Type.String()),
    terminalKey: Type.String({ description: "GET /v1/sessions/{id}/tasks/{terminalKey} reads its output." }),
    readOnly: Type.Boolean(),
  },
  { $id: "BackgroundTask" },
);
export type BackgroundTask = Static<typeof BackgroundTask>;

export const BackgroundTaskOutput = Type.Object(
  {
    task: BackgroundTask,
    output: Type.String({ description: "What the command wrote (stdout and stderr as they came); the newest part when truncated." }),
    truncated: Type.Boolean({ description: "Older output was dropped to stay within the agent's output limit (1 MiB by default)." }),
    exitCode: Nullable(Type.Integer()),
    signal: Nullable(Type.String()),
  },
  { $id: "BackgroundTaskOutput" },
);
export type BackgroundTaskOutput = Static<typeof BackgroundTaskOutput>;

export const Goal = Type.Object(
  {
    objective: Type.String(),
    status: Type.Union([Type.Literal("active"), Type.Literal("budget_exhausted")]),
    activity: Type.Union([Type.Literal("planning"), Type.Literal("working"), Type.Literal("idle")]),
    tokenBudget: Nullable(Type.Number()),
    tokensUsed: Type.Number(),
    timeUsedSeconds: Type.Number(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: "Goal" },
);
export type Goal = Static<typeof Goal>;

export const SessionPlan = Type.Object(
  {
    entries: Type.Array(
      Type.Object({
        content: Type.String(),
        priority: Type.Union([Type.Literal("high"), Type.Literal("medium"), Type.Literal("low")]),
        status: Type.Union([Type.Literal("pending"), Type.Literal("in_progress"), Type.Literal("completed")]),
      }),
    ),
  },
  { $id: "SessionPlan" },
);
export type SessionPlan = Static<typeof SessionPlan>;

export const UpdateGate = Type.Object({ harnessId: Type.String(), harnessName: Type.String() }, { $id: "UpdateGate" });

export const ConfigOption = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  category: Nullable(Type.String({ description: "e.g. `model`, `mode`." })),
  currentValue: Type.String(),
  options: Type.Array(Type.Object({ value: Type.String(), name: Type.String(), description: Nullable(Type.String()) })),
});
export type ConfigOption = Static<typeof ConfigOption>;

export const AvailableCommand = Type.Object(
  {
    name: Type.String({ description: "Typed after a slash: a prompt `/name args` reaches the agent as that text, unchanged." }),
    description: Type.String(),
    inputHint: Nullable(
      Type.String({ description: "What to type after the name (ACP `input.hint`; empty for input without a hint); null for a command that takes no input." }),
    ),
  },
  { $id: "AvailableCommand" },
);
export type AvailableCommand = Static<typeof AvailableCommand>;

export const SessionDetail = Type.Object(
  {
    hasMore: Type.Boolean({ description: "Older conversation items exist; ask again with before=nextBefore." }),
    nextBefore: Nullable(Type.String()),
    session: Session,
    conversation: Type.Array(ConversationItem, { description: "Oldest first, the newest page unless `before` was given." }),
    promptQueue: Type.Array(QueuedPrompt),
    eventCursor: EventCursor,
    pendingQuestion: Nullable(PendingQuestion),
    pendingPlanApproval: Type.Boolean(),
    configOptions: Type.Array(ConfigOption, {
      description: "The agent's config options (model, mode, …) as it last reported them, so a client can show the pickers at once.",
    }),
    availableCommands: Type.Array(AvailableCommand, {
      description:
        "The slash commands the agent last said it has (ACP available_commands_update), kept across restarts; empty until it says. `session.commands` tells a change.",
    }),
    backgroundTasks: Type.Array(BackgroundTask),
    goal: Nullable(Goal),
    sessionPlan: Nullable(SessionPlan),
    updateGate: Nullable(UpdateGate),
  },
  { $id: "SessionDetail" },
);
export type SessionDetail = Static<typeof SessionDetail>;

export const SessionConfig = Type.Object(
  {
    configId: Type.String({ description: "The option this answer is about (the one just set)." }),
    configOptions: Type.Array(ConfigOption),
  },
  { $id: "SessionConfig" },
);
export type SessionConfig = Static<typeof SessionConfig>;

export const UsageLimits = Type.Object(
  {
    state: Type.Union([Type.Literal("available"), Type.Literal("unavailable")]),
    harnessId: Type.String(),
    accountId: Nullable(Type.String()),
    accountLabel: Nullable(Type.String()),
    accountEmail: Nullable(Type.String()),
    plan: Nullable(Type.String()),
    windows: Type.Array(
      Type.Object({
        id: Type.String(),
        label: Type.String(),
        usedPercent: Type.Number(),
        durationMinutes: Type.Number(),
        resetsAt: Nullable(Timestamp),
      }),
    ),
    credits: Nullable(Type.Object({ hasCredits: Type.Boolean(), unlimited: Type.Boolean(), balance: Nullable(Type.String()) })),
    detail: Nullable(Type.String()),
    fetchedAt: Timestamp,
  },
  { $id: "UsageLimits" },
);
export type UsageLimits = Static<typeof UsageLimits>;

/** The events the sessions module publishes, with their payloads. */
export const SessionEvents = {
  // Session events: subject and sessionId are the session id, so each session's `id` sequence has no gaps.
  "session.created": Type.Object({ session: Session }),
  "session.updated": Type.Object({ session: Session }),
  "session.deleted": Type.Object({ sessionId: Type.String() }),
  /** A conversation item began: the user's prompt, or the agent's reply (isGenerating). */
  "session.message.created": Type.Object({ item: ConversationItem }),
  /**
   * Streamed text to append to an item; chunks that arrive close together are sent as one delta (at
   * most 128 Ki characters). The item's stored text is these deltas joined.
   */
  "session.message.delta": Type.Object({ itemId: Type.String(), text: Type.String() }),
  /** The item ended. Its text is left out (`textOmitted`) past 64 KiB: the deltas carry it, and so does the session detail. */
  "session.message.completed": Type.Object({
    item: ConversationItem,
    textOmitted: Type.Boolean({ description: "`item.text` is empty because the text is longer than 64 KiB." }),
  }),
  "session.prompt.queued": Type.Object({ prompt: QueuedPrompt }),
  "session.prompt.updated": Type.Object({ prompt: QueuedPrompt }),
  "session.prompt.removed": Type.Object({ promptId: Type.String() }),
  "session.prompt.started": Type.Object({ promptId: Type.String(), itemId: Type.String() }),
  /** The pending question, or null once it is answered or withdrawn. */
  "session.question": Type.Object({ question: Type.Union([PendingQuestion, Type.Null()]) }),
  "session.plan": Type.Object({ plan: SessionPlan }),
  "session.usage": Type.Object({ usage: SessionUsage }),
  "session.goal": Type.Object({ goal: Type.Union([Goal, Type.Null()]) }),
  /** An entry of a reply's details (a thought, a tool call) was added or changed: read it at endpoint 12. */
  "session.transcript": Type.Object({ itemId: Type.String(), key: Type.String(), position: Type.Integer(), revision: Type.Integer() }),
  /** The session's background tasks (commands the agent runs) changed: one started, ended or was released. */
  "session.tasks": Type.Object({ backgroundTasks: Type.Array(BackgroundTask) }),
  /** The agent's slash commands changed (the whole new list; at most 500, descriptions cut at 1,000 characters). */
  "session.commands": Type.Object({ availableCommands: Type.Array(AvailableCommand) }),
  /** The conversation Atrium kept was handed to the agent with a prompt (its own session could not carry it: see docs/agents.md). */
  "session.history.handoff": Type.Object({
    turns: Type.Integer({ description: "Turns handed over." }),
    summarised: Type.Integer({ description: "Of those, the oldest given as a summary to fit the budget." }),
    omitted: Type.Integer({ description: "The oldest turns left out, when even their summaries did not fit." }),
    chars: Type.Integer({ description: "The handoff's length in characters (at most the budget)." }),
    notice: Type.String({ description: "What the session's status says about it." }),
  }),
  /** The session left for a paired machine (the move's decision): it continues there as `sessionId`. */
  "session.moved": Type.Object({ machineId: Type.String(), machineName: Type.String(), sessionId: Type.String() }),
  /** The session arrived from a paired machine and is live here; its agent gets the conversation by handoff. */
  "session.imported": Type.Object({ fromMachineId: Type.String(), fromSessionId: Type.String() }),
  "session.config": Type.Object({ configOptions: Type.Array(ConfigOption), configSelections: Type.Record(Type.String(), Type.String()) }),
  ...ScheduleEvents,
};

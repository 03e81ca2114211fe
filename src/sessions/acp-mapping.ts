import type * as acp from "@agentclientprotocol/sdk";
import type { AvailableCommand, ConfigOption, SessionUsage } from "../schemas/sessions.ts";

export const EMPTY_USAGE: SessionUsage = {
  used: 0,
  size: 0,
  inputTokens: null,
  cachedInputTokens: null,
  outputTokens: null,
  reasoningOutputTokens: null,
  totalTokens: null,
  costAmount: null,
  costCurrency: null,
  costKind: null,
};

/**
 * A `usage_update`: the context window's use, and the cost so far. ACP's cost is the session's, so
 * the session takes it, never going down. An agent whose cost counts from its process's start
 * (`processReportedCost`: what the same process reported before, 0 for a new one) adds the
 * difference instead, so its cost too only grows across agent restarts.
 */
export function applyUsage(usage: SessionUsage, update: acp.UsageUpdate, processReportedCost?: number): SessionUsage {
  const next: SessionUsage = { ...usage, used: update.used, size: update.size };
  if (!update.cost) return next;
  const stored = usage.costAmount ?? 0;
  const reported = update.cost.amount;
  const costAmount =
    processReportedCost === undefined ? Math.max(stored, reported) : stored + (reported >= processReportedCost ? reported - processReportedCost : reported);
  return { ...next, costAmount, costCurrency: update.cost.currency, costKind: "reported" };
}

/** Token counts as agents report them: a turn's in its prompt answer, a model call's in an update's `_meta.usage` (Qwen Code). */
export interface ReportedTokens {
  inputTokens?: number | null;
  outputTokens?: number | null;
  totalTokens?: number | null;
  cachedReadTokens?: number | null;
  thoughtTokens?: number | null;
}

/**
 * The turn's counts a prompt answer carries: ACP's (unstable) `usage`, else Gemini CLI's
 * `_meta.quota.token_count` (`{input_tokens, output_tokens}`, summed over the turn's model calls).
 */
export function turnTokens(response: acp.PromptResponse): ReportedTokens | undefined {
  const { usage, _meta } = response as { usage?: ReportedTokens | null; _meta?: { quota?: { token_count?: unknown } } | null };
  if (usage) return usage;
  const count = _meta?.quota?.token_count as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
  if (typeof count?.input_tokens !== "number" || typeof count.output_tokens !== "number") return undefined;
  return { inputTokens: count.input_tokens, outputTokens: count.output_tokens, totalTokens: count.input_tokens + count.output_tokens };
}

/** The counts of one model call an update carries in `_meta.usage`, if any. */
export function perCallTokens(update: acp.SessionUpdate): ReportedTokens | undefined {
  const usage = (update as { _meta?: { usage?: unknown } | null })._meta?.usage;
  return usage && typeof usage === "object" ? (usage as ReportedTokens) : undefined;
}

/** The session's token counts with reported ones added. */
export function addTokens(usage: SessionUsage, reported: ReportedTokens): SessionUsage {
  return {
    ...usage,
    inputTokens: addCount(usage.inputTokens, reported.inputTokens),
    cachedInputTokens: addCount(usage.cachedInputTokens, reported.cachedReadTokens),
    outputTokens: addCount(usage.outputTokens, reported.outputTokens),
    reasoningOutputTokens: addCount(usage.reasoningOutputTokens, reported.thoughtTokens),
    totalTokens: addCount(usage.totalTokens, reported.totalTokens),
  };
}

/** Adds a reported count to a summed one; a count never reported stays unknown (null). */
function addCount(sum: number | null, reported: number | undefined | null): number | null {
  if (reported === undefined || reported === null) return sum;
  return (sum ?? 0) + reported;
}

/** Commands kept per session, and the characters of each text kept: an agent's list stays far below the 1 MiB an event may take. */
const MAX_COMMANDS = 500;
const MAX_COMMAND_TEXT = 1_000;

/** The agent's slash commands as the interface shows them. */
export function toAvailableCommands(commands: acp.AvailableCommand[]): AvailableCommand[] {
  const cut = (text: string) => text.slice(0, MAX_COMMAND_TEXT);
  return commands.slice(0, MAX_COMMANDS).map((command) => ({
    name: cut(command.name),
    description: cut(command.description ?? ""),
    // A command that takes input without a hint (Qwen says `{hint: ""}`) keeps its empty hint: null is no input.
    inputHint: command.input ? cut(command.input.hint ?? "") : null,
  }));
}

type SelectOption = { value: string; name: string; description?: string | null };

/** The agent's config options as the interface shows them (select options flattened out of groups). */
export function toConfigOptions(options: acp.SessionConfigOption[] | null | undefined): ConfigOption[] {
  return (options ?? []).map((option) => {
    const values: SelectOption[] =
      option.type === "select"
        ? (option.options as Array<SelectOption | { options: SelectOption[] }>).flatMap((entry) => ("options" in entry ? entry.options : [entry]))
        : [
            { value: "true", name: "On" },
            { value: "false", name: "Off" },
          ];
    const current = option.type === "select" ? option.currentValue : String((option as { currentValue?: unknown }).currentValue ?? false);
    return withCurrentListed({
      id: option.id,
      name: option.name,
      description: option.description ?? null,
      category: option.category ?? null,
      currentValue: current,
      options: values.map((value) => ({ value: value.value, name: value.name, description: value.description ?? null })),
    });
  });
}

/** The option ids under which the older `modes` and `models` are shown. */
export const LEGACY_MODE_ID = "mode";
export const LEGACY_MODEL_ID = "model";

/** The older way agents (Gemini, Qwen) announce their modes and models, before config options. */
interface LegacyModels {
  currentModelId: string;
  availableModels: Array<{ modelId: string; name: string; description?: string | null }>;
}

/**
 * The options an agent's session/new or session/load answer carries: its `configOptions`, else its
 * older `modes` and `models` shown as options `mode` and `model`; undefined when it carries neither.
 */
export function agentConfigOptions(answer: {
  configOptions?: acp.SessionConfigOption[] | null;
  modes?: acp.SessionModeState | null;
}): { options: ConfigOption[]; legacy: boolean } | undefined {
  if (answer.configOptions) return { options: toConfigOptions(answer.configOptions), legacy: false };
  const models = (answer as { models?: LegacyModels | null }).models;
  const options: ConfigOption[] = [];
  if (answer.modes) {
    options.push(
      withCurrentListed({
        id: LEGACY_MODE_ID,
        name: "Mode",
        description: null,
        category: "mode",
        currentValue: answer.modes.currentModeId,
        options: answer.modes.availableModes.map((mode) => ({ value: mode.id, name: mode.name, description: mode.description ?? null })),
      }),
    );
  }
  if (models) {
    options.push(
      withCurrentListed({
        id: LEGACY_MODEL_ID,
        name: "Model",
        description: null,
        category: "model",
        currentValue: models.currentModelId,
        options: models.availableModels.map((model) => ({ value: model.modelId, name: model.name, description: model.description ?? null })),
      }),
    );
  }
  return options.length > 0 ? { options, legacy: true } : undefined;
}

/** An agent may run a value its own list leaves out (Qwen's configured model): it is listed too. */
function withCurrentListed(option: ConfigOption): ConfigOption {
  if (option.options.some((candidate) => candidate.value === option.currentValue)) return option;
  const current = { value: option.currentValue, name: option.currentValue, description: "in use now; the agent does not list it" };
  return { ...option, options: [current, ...option.options] };
}

export function configSelectionsOf(options: ConfigOption[]): Record<string, string> {
  return Object.fromEntries(options.map((option) => [option.id, option.currentValue]));
}

/** Whether the agent is in a plan mode (its mode option names one). */
export function isPlanMode(options: ConfigOption[]): boolean {
  return options.some((option) => option.category === "mode" && /plan/i.test(option.currentValue));
}

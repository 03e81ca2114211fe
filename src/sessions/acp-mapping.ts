import type * as acp from "@agentclientprotocol/sdk";
import type { ConfigOption, SessionUsage } from "../schemas/sessions.ts";

export const EMPTY_USAGE: SessionUsage = {
  used: 0,
  size: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningOutputTokens: 0,
  totalTokens: 0,
  costAmount: null,
  costCurrency: null,
  costKind: null,
};

/** A `usage_update`: the context window's use and the cost so far, as the agent reports them. */
export function applyUsage(usage: SessionUsage, update: acp.UsageUpdate): SessionUsage {
  return {
    ...usage,
    used: update.used,
    size: update.size,
    ...(update.cost ? { costAmount: update.cost.amount, costCurrency: update.cost.currency, costKind: "reported" as const } : {}),
  };
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
    return {
      id: option.id,
      name: option.name,
      description: option.description ?? null,
      category: option.category ?? null,
      currentValue: current,
      options: values.map((value) => ({ value: value.value, name: value.name, description: value.description ?? null })),
    };
  });
}

export function configSelectionsOf(options: ConfigOption[]): Record<string, string> {
  return Object.fromEntries(options.map((option) => [option.id, option.currentValue]));
}

import type * as acp from "@agentclientprotocol/sdk";
import type { ThoughtDetails, ToolCallDetails } from "../schemas/transcript.ts";

export type { ThoughtDetails, ToolCallDetails };

/** Strings longer than this (a file's contents, a command's output) are cut in stored details. */
const MAX_STRING_CHARS = 64 * 1024;

export function toolCallKey(toolCallId: string): string {
  return `tool:${toolCallId}`;
}

export function thoughtKey(index: number): string {
  return `thought:${index}`;
}

/**
 * Merges a `tool_call` or `tool_call_update` into what is known of the call. ACP sends only the
 * fields that changed; content and locations, when sent, replace the earlier ones. `textOffset` is
 * where in the reply's text the call began; a call already known keeps its own.
 */
export function mergeToolCall(known: ToolCallDetails | undefined, update: acp.ToolCall | acp.ToolCallUpdate, textOffset: number): ToolCallDetails {
  const base: ToolCallDetails = known ?? {
    type: "tool_call",
    toolCallId: update.toolCallId,
    title: "",
    kind: null,
    status: null,
    content: [],
    locations: [],
    rawInput: null,
    rawOutput: null,
    textOffset,
  };
  return bounded({
    ...base,
    title: update.title ?? base.title,
    kind: update.kind ?? base.kind,
    status: update.status ?? base.status,
    content: (update.content as ToolCallDetails["content"] | null | undefined) ?? base.content,
    locations: update.locations ?? base.locations,
    rawInput: update.rawInput ?? base.rawInput,
    rawOutput: update.rawOutput ?? base.rawOutput,
  });
}

/** The terminals a tool call shows (its output is the terminal's), by id. */
export function terminalIdsOf(update: acp.ToolCall | acp.ToolCallUpdate): string[] {
  return (update.content ?? []).flatMap((content) => (content.type === "terminal" ? [content.terminalId] : []));
}

/** Cuts long strings anywhere in a value, saying how much was left out. */
function bounded<T>(value: T): T {
  if (typeof value === "string") {
    return (
      value.length > MAX_STRING_CHARS ? `${value.slice(0, MAX_STRING_CHARS)}… [${value.length - MAX_STRING_CHARS} more characters not kept]` : value
    ) as T;
  }
  if (Array.isArray(value)) return value.map(bounded) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, bounded(inner)])) as T;
  }
  return value;
}

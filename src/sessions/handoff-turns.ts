import type { ConversationItem } from "../schemas/sessions.ts";
import type { ThoughtDetails, ToolCallDetails } from "../schemas/transcript.ts";
import type { HandoffToolCall, HandoffTurn } from "./history-handoff.ts";

/** The text a tool call's result carries: its text content blocks, else its raw output. */
function outputOf(call: ToolCallDetails): string {
  const texts = call.content.flatMap((block) => {
    if (block.type !== "content") return [];
    const content = block.content as { type?: unknown; text?: unknown };
    return content.type === "text" && typeof content.text === "string" ? [content.text] : [];
  });
  if (texts.length > 0) return texts.join("\n");
  if (call.rawOutput === undefined || call.rawOutput === null) return "";
  return typeof call.rawOutput === "string" ? call.rawOutput : JSON.stringify(call.rawOutput, null, 1);
}

export function handoffToolCall(call: ToolCallDetails): HandoffToolCall {
  const written = call.content.flatMap((block) => (block.type === "diff" ? [block.path] : []));
  const paths = [...new Set([...written, ...call.locations.map((location) => location.path)])];
  return { title: call.title, kind: call.kind, status: call.status, paths, output: outputOf(call) };
}

/**
 * The stored conversation as turns: each prompt with the reply after it and that reply's tool calls
 * (`detailsOf`: an item's transcript entries, in order). A reply with no prompt before it is a turn of its own.
 */
export function handoffTurns(items: ConversationItem[], detailsOf: (itemId: string) => Array<ToolCallDetails | ThoughtDetails>): HandoffTurn[] {
  const turns: HandoffTurn[] = [];
  for (const item of items) {
    if (item.role === "user") {
      turns.push({ prompt: item.text, attachments: item.attachments.map((file) => file.name), reply: null, stopReason: null, tools: [] });
      continue;
    }
    let turn = turns.at(-1);
    if (!turn || turn.reply !== null) {
      turn = { prompt: "", attachments: [], reply: null, stopReason: null, tools: [] };
      turns.push(turn);
    }
    turn.reply = item.text;
    turn.stopReason = item.stopReason;
    turn.tools = detailsOf(item.id).flatMap((entry) => (entry.type === "tool_call" ? [handoffToolCall(entry)] : []));
  }
  return turns;
}

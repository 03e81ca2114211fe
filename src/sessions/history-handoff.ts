/**
 * The conversation Atrium kept, written for an agent that did not see it (it could not load its
 * session, the session was forked, or another agent continues it): each turn as the user's prompt,
 * the tool calls reduced to what they did and their result's last lines, and the reply. It fits a
 * budget of characters: the oldest turns are summarised first, then left out (counted), and a turn is
 * never cut part-way.
 */

/** The handoff's size limit in characters (about 25,000 tokens at 4 characters a token: an eighth of a 200,000-token context). */
export const HANDOFF_BUDGET_CHARS = 100_000;

/** What a tool call did, as the handoff tells it. */
export interface HandoffToolCall {
  title: string;
  kind: string | null;
  status: string | null;
  /** Files it touched or wrote. */
  paths: string[];
  /** The text of its result (content blocks, raw output), whole: the handoff keeps the last lines. */
  output: string;
}

/** One turn of the stored conversation. */
export interface HandoffTurn {
  prompt: string;
  /** Names of the files the prompt attached. */
  attachments: string[];
  /** null: a prompt without a reply (the conversation was cut after it). */
  reply: string | null;
  stopReason: string | null;
  tools: HandoffToolCall[];
}

export interface Handoff {
  /** The text given to the agent with its first prompt. */
  text: string;
  turns: number;
  /** Turns given as a summary, not in full. */
  summarised: number;
  /** The oldest turns left out when even their summaries did not fit. */
  omitted: number;
}

/** A tool call's result keeps this many of its last non-empty lines, each cut to KEY_LINE_CHARS. */
const KEY_LINES = 3;
const KEY_LINE_CHARS = 200;
/** A summarised turn keeps this much of its prompt and of its reply. */
const SUMMARY_CHARS = 160;
/** The oldest turns given keep this much of their prompt only. */
const BRIEF_CHARS = 100;

const HEADER =
  "<conversation-so-far>\nThis conversation began before you joined it. Atrium, the app the user works in, kept it and gives it to you here so " +
  "you can carry on: the earlier turns, oldest first (tool calls reduced to what they did and their last lines of output; the oldest " +
  "turns summarised where the whole did not fit). Do not answer these turns again; answer the user's new message after this block.\n";
const FOOTER = "</conversation-so-far>\n";

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** The last lines that say something, as the result of a command or a test run ends with its outcome. */
function keyLines(output: string): string[] {
  return output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "")
    .slice(-KEY_LINES)
    .map((line) => clip(line, KEY_LINE_CHARS));
}

function describeTool(tool: HandoffToolCall): string {
  const where = tool.paths.length > 0 ? ` (${tool.paths.slice(0, 3).join(", ")}${tool.paths.length > 3 ? ", …" : ""})` : "";
  const lines = keyLines(tool.output).map((line) => `    │ ${line}\n`);
  return `  - ${tool.kind ?? "tool"}: ${clip(oneLine(tool.title), KEY_LINE_CHARS)}${where} [${tool.status ?? "unknown"}]\n${lines.join("")}`;
}

const ended = (turn: HandoffTurn) => (turn.stopReason && turn.stopReason !== "end_turn" ? ` (the reply ended: ${turn.stopReason})` : "");
const attached = (turn: HandoffTurn) => (turn.attachments.length > 0 ? `\n(attached: ${turn.attachments.join(", ")})` : "");

function fullTurn(turn: HandoffTurn, number: number): string {
  const tools = turn.tools.length > 0 ? `Tool calls:\n${turn.tools.map(describeTool).join("")}` : "";
  const reply = turn.reply === null ? "" : `Assistant${ended(turn)}:\n${turn.reply}\n`;
  return `\n## Turn ${number}\nUser:\n${turn.prompt}${attached(turn)}\n${tools}${reply}`;
}

function summarisedTurn(turn: HandoffTurn, number: number): string {
  const tools = turn.tools.length > 0 ? ` Tool calls: ${turn.tools.length} (${[...new Set(turn.tools.map((tool) => tool.kind ?? "tool"))].join(", ")}).` : "";
  const reply = turn.reply === null ? "" : ` Assistant${ended(turn)}: ${clip(oneLine(turn.reply), SUMMARY_CHARS)}`;
  return `\n## Turn ${number} (summarised)\nUser: ${clip(oneLine(turn.prompt), SUMMARY_CHARS)}${attached(turn).replace("\n", " ")}.${tools}${reply}\n`;
}

const omittedNote = (count: number) => (count === 0 ? "" : `\n(${count} earlier turn${count === 1 ? "" : "s"} left out: the whole did not fit.)\n`);

/** A turn in one line: what the user asked, for the oldest turns. */
function briefTurn(turn: HandoffTurn, number: number): string {
  return `\n## Turn ${number} (summarised): User: ${clip(oneLine(turn.prompt), BRIEF_CHARS)}\n`;
}

/**
 * How turns are given, from the newest back: in full while those take at most 60 % of the budget, then
 * summarised up to 85 %, then as one line up to all of it; the oldest that do not fit are left out.
 */
const TIERS: Array<{ render: (turn: HandoffTurn, number: number) => string; upTo: number }> = [
  { render: fullTurn, upTo: 0.6 },
  { render: summarisedTurn, upTo: 0.85 },
  { render: briefTurn, upTo: 1 },
];

/** The handoff of these turns within `budgetChars`: the newest turns whole, the older ones shorter (TIERS), the oldest left out. */
export function buildHandoff(turns: HandoffTurn[], budgetChars = HANDOFF_BUDGET_CHARS): Handoff {
  const room = budgetChars - HEADER.length - FOOTER.length - omittedNote(turns.length).length;
  const parts: string[] = [];
  let used = 0;
  let index = turns.length - 1;
  let full = 0;
  for (const tier of TIERS) {
    for (; index >= 0; index--) {
      const part = tier.render(turns[index]!, index + 1);
      if (used + part.length > room * tier.upTo) break;
      parts.push(part);
      used += part.length;
      if (tier === TIERS[0]) full++;
    }
  }
  const omitted = index + 1;
  const text = HEADER + omittedNote(omitted) + parts.reverse().join("") + FOOTER;
  return { text, turns: turns.length, summarised: turns.length - omitted - full, omitted };
}

/**
 * One turn of a Claude Code session as claude-agent-acp sends it over ACP, for the scripted agent
 * (test/fixtures/scripted-agent/agent.ts): markdown text streamed in small chunks, with four tool calls
 * where they happened in it: a Read, an Edit with its diff, a Write of a new file and a Bash run with
 * coloured output. Every prompt gets the same turn; a reply's details are keyed per reply
 * (`tool:<toolCallId>`), so the ids repeat from turn to turn as the script does.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { fixtureSections } from "../lib/conversation-text.ts";

/** The scripted agent's steps this script uses: a text chunk, or a session update sent as it is. */
type ScriptStep = { chunk: string } | { update: acp.SessionUpdate };

/** About what one streamed delta of Claude's text holds (a few tokens). */
const TEXT_CHUNK_CHARS = 24;

const ROOT = "/home/dev/shop-api";
const APP = `${ROOT}/src/app.ts`;
const BACKOFF = `${ROOT}/src/backoff.ts`;

/** The words the reply ends with: once the page shows them, it shows the whole reply's text. */
export const REPLY_END_TEXT = "Nothing else needed to change.";

/**
 * The files the turn reads and writes (bench/fixtures/claude-turn-files.txt): src/app.ts's first 40 lines, the new
 * src/backoff.ts; and the reply's text, cut where its tool calls come (before the Read, the Edit, the Write, the Bash, and after).
 */
const FILES = fixtureSections("claude-turn-files.txt");
const TEXT = FILES.get("reply")!
  .split(/^---\n/m)
  .slice(0, -1)
  .map((piece) => piece.slice(0, -1));
const linesOf = (name: string) => FILES.get(name)!.replace(/\n$/, "").split("\n");
const APP_LINES = linesOf("src/app.ts");
const EDITED_LINES = APP_LINES.slice(0, 30);
/** The same 30 lines with three of them changed: the deadline passed in, checked, and the backoff moved out. */
const EDITS = [
  ["async function fetchWithRetry", "async function fetchWithRetry(path: string, init: RequestInit, deadline: number): Promise<Response> {"],
  ["  for (let attempt", "  for (let attempt = 0; attempt < RETRIES && Date.now() + backoffMs(attempt) < deadline; attempt++) {"],
  ["    await new Promise", "    await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));"],
];
const EDITED_NEW_LINES = EDITED_LINES.map((line) => EDITS.find(([start]) => line.startsWith(start!))?.[1] ?? line);
const BACKOFF_LINES = linesOf("src/backoff.ts");
/** `npm test`'s output in the fixture, its {green …} and {dim …} as the terminal's colour codes. */
const COLOURS: Record<string, [number, number]> = { green: [32, 39], dim: [2, 22] };
const TEST_OUTPUT = FILES.get("npm test")!.replace(/\{(green|dim) ([^}]*)\}/g, (_, colour: string, text: string) => {
  const [on, off] = COLOURS[colour]!;
  return `\u001b[${on}m${text}\u001b[${off}m`;
});

const lines = (all: string[]) => `${all.join("\n")}\n`;

/** The reply's text as the agent streams it: a delta every few tokens. */
function streamed(text: string): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let at = 0; at < text.length; at += TEXT_CHUNK_CHARS) steps.push({ chunk: text.slice(at, at + TEXT_CHUNK_CHARS) });
  return steps;
}

/** A tool call as claude-agent-acp sends it, pending, then its completion with `result`. */
const toolCall = (toolCallId: string, title: string, kind: acp.ToolKind, call: Partial<acp.ToolCall>, result?: acp.ToolCallContent[]): ScriptStep[] => [
  { update: { sessionUpdate: "tool_call", toolCallId, title, kind, status: "pending", ...call } },
  { update: { sessionUpdate: "tool_call_update", toolCallId, status: "completed", ...(result ? { content: result } : {}) } },
];
const diff = (path: string, oldText: string | null, newText: string): acp.ToolCallContent[] => [{ type: "diff", path, oldText, newText }];
const textContent = (text: string): acp.ToolCallContent[] => [{ type: "content", content: { type: "text", text } }];

/** A Read of src/app.ts (its first 40 lines as a fenced block), an Edit of 30 of them, a Write of the new src/backoff.ts, `npm test` and its output. */
const read = toolCall(
  "toolu-read-1",
  "Read src/app.ts",
  "read",
  { locations: [{ path: APP }], rawInput: { file_path: APP } },
  textContent(`\`\`\`\n${lines(APP_LINES)}\`\`\``),
);
const edit = toolCall("toolu-edit-2", "Edit src/app.ts", "edit", {
  locations: [{ path: APP }],
  rawInput: { file_path: APP, old_string: lines(EDITED_LINES), new_string: lines(EDITED_NEW_LINES) },
  content: diff(APP, lines(EDITED_LINES), lines(EDITED_NEW_LINES)),
});
const write = toolCall("toolu-write-3", "Write src/backoff.ts", "edit", {
  locations: [{ path: BACKOFF }],
  rawInput: { file_path: BACKOFF, content: lines(BACKOFF_LINES) },
  content: diff(BACKOFF, null, lines(BACKOFF_LINES)),
});
const bash = toolCall("toolu-bash-4", "`npm test`", "execute", { rawInput: { command: "npm test", description: "Run tests" } }, textContent(TEST_OUTPUT));

const TOOL_CALLS = [read, edit, write, bash];
export const TOOL_CALLS_PER_REPLY = TOOL_CALLS.length;

/** One whole turn: text, Read, text, Edit, text, Write, text, Bash, text. */
export const TURN_STEPS = TEXT.flatMap((text, index): ScriptStep[] => [...streamed(text), ...(TOOL_CALLS[index] ?? [])]);

/** The reply's text, whole: what GET /v1/sessions/{id} must hold for every reply. */
export const REPLY_TEXT = TEXT.join("");

/**
 * What a test tells the scripted model provider to answer, and what the provider records of each
 * request. The words are the vendors' common ground: a response is streamed text, thinking and tool
 * calls; a tool call names an operation (write a file, edit one, run a command, set a plan) that each
 * API module turns into the tool the requesting agent offers for it (tools.ts).
 */

/** An operation a model asks the agent to carry out, in the agent's own tool. */
export type ToolUse =
  | { op: "write"; path: string; content: string }
  | { op: "edit"; path: string; oldText: string; newText: string }
  | { op: "run"; command: string }
  | { op: "plan"; entries: Array<{ content: string; status: "pending" | "in_progress" | "completed" }> }
  /** A tool by the name the agent gives it, with its input as is. */
  | { op: "raw"; name: string; input: Record<string, unknown> };

export type Part =
  /** One streamed chunk of the reply's text. */
  | { text: string }
  /** One streamed chunk of the model's reasoning, where the API carries it. */
  | { thinking: string }
  | { call: ToolUse };

/** One model call's answer. */
export interface ScriptedResponse {
  parts: Part[];
  /** Reported in the API's own usage fields; when absent, small made-up counts are reported. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Waits this long before the answer's headers. */
  delayMs?: number;
  /** Waits this long between streamed chunks. */
  chunkDelayMs?: number;
  /** Answers with this HTTP status and the API's error body instead. */
  fail?: { status: number; message: string };
  /** Never answers (until the request is aborted or the provider is stopped or released). */
  hang?: boolean;
}

export type ApiName = "anthropic" | "responses" | "chat" | "gemini";

/** What one request carried, as the provider understood it. */
export interface RecordedRequest {
  api: ApiName;
  method: string;
  /** The path with its query string. */
  path: string;
  model: string | null;
  /**
   * A turn's request (it offers tools) rather than a side call an agent makes on its own (a title, a
   * topic check, a token count): only these take scripted responses.
   */
  main: boolean;
  /** The names of the tools it offered. */
  tools: string[];
  /** The text of every message it carried (system prompt left out), in order, joined by newlines. */
  text: string;
  /** The output of each tool result it carried, in order. */
  toolResults: string[];
  /** The features it asked for in Anthropic's `anthropic-beta` header (the 1M context window is one). */
  betas?: string[];
  /** The parsed JSON body. */
  body: unknown;
}

/** A tool as a request offers it: its name and, where the API has one, its kind (`custom` for a freeform tool). */
export interface OfferedTool {
  name: string;
  custom?: boolean;
  /** The names of its input's properties, where the API gives a schema (two agents' `edit` tools differ in them). */
  fields?: string[];
}

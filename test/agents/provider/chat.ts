/**
 * OpenAI Chat Completions, as Qwen Code, OpenCode and Copilot CLI call it: `POST /v1/chat/completions`
 * streamed (SSE `chat.completion.chunk`s, then `data: [DONE]`) or not (one `chat.completion`), and
 * nothing else. Tool results come back as `role: "tool"` messages.
 *
 * Side calls: a request that offers no tools (OpenCode's title, Copilot's) gets the provider's short
 * text; Qwen Code's JSON side queries (next speaker, memory recall) offer one tool, `respond_in_schema`,
 * and are answered with a call of it whose arguments fit the schema (a next-speaker check says the user
 * speaks next, so the agent ends its turn). A `response_format` JSON schema is answered the same way in text.
 */
import type { ApiModule } from "./scripted-provider.ts";
import { RETRY_AT_ONCE, sseFrame, sseResponse, usageOf } from "./scripted-provider.ts";
import type { OfferedTool, RecordedRequest, ScriptedResponse } from "./script.ts";
import { toolCallFor } from "./tools.ts";
import { isObject, valueFor, type Json } from "./json.ts";

/** Qwen Code's side queries (BaseLlmClient.generateJson) ask for their JSON through this one tool. */
const SCHEMA_TOOL = "respond_in_schema";

/** The text of a message's content: a string, or the text parts of an array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : typeof part === "string" ? part : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

interface FunctionTool {
  name: string;
  parameters: Json;
}

function toolsOf(body: Json): FunctionTool[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.flatMap((tool) => {
    if (!isObject(tool)) return [];
    const fn = isObject(tool.function) ? tool.function : tool;
    return typeof fn.name === "string" ? [{ name: fn.name, parameters: isObject(fn.parameters) ? fn.parameters : {} }] : [];
  });
}

/** The JSON schema a `response_format` asks for, if it asks for JSON. */
function responseSchema(body: Json): unknown {
  const format = body.response_format;
  if (!isObject(format)) return undefined;
  if (format.type === "json_schema" && isObject(format.json_schema)) return format.json_schema.schema ?? {};
  if (format.type === "json_object") return {};
  return undefined;
}

export function recordChat(request: Request, body: Json): RecordedRequest {
  const url = new URL(request.url);
  const tools = toolsOf(body);
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const conversation = messages.filter((message) => message.role !== "system" && message.role !== "developer");
  return {
    api: "chat",
    method: request.method,
    path: url.pathname + url.search,
    model: typeof body.model === "string" ? body.model : null,
    main: tools.length > 0 && !tools.every((tool) => tool.name === SCHEMA_TOOL),
    tools: tools.map((tool) => tool.name),
    text: conversation
      .map((message) => textOf(message.content))
      .filter(Boolean)
      .join("\n"),
    toolResults: conversation.filter((message) => message.role === "tool").map((message) => textOf(message.content)),
    body,
  };
}

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one answer says, in Chat Completions terms, in the script's order. */
type Piece = { reasoning: string } | { content: string } | { call: ToolCall };

interface Answer {
  pieces: Piece[];
  calls: ToolCall[];
}

function answerOf(response: ScriptedResponse, recorded: RecordedRequest, tools: FunctionTool[], body: Json, number: string): Answer {
  if (!recorded.main) {
    // A side call: Qwen's JSON side query wants its tool called; a response_format wants JSON text.
    const schemaTool = tools.find((tool) => tool.name === SCHEMA_TOOL);
    if (schemaTool) {
      const call = { id: `call_${number}_0`, name: SCHEMA_TOOL, arguments: JSON.stringify(valueFor(schemaTool.parameters)) };
      return { pieces: [{ call }], calls: [call] };
    }
    const schema = responseSchema(body);
    if (schema !== undefined) return { pieces: [{ content: JSON.stringify(valueFor(schema)) }], calls: [] };
  }
  const offered: OfferedTool[] = tools.map((tool) => ({
    name: tool.name,
    fields: isObject(tool.parameters.properties) ? Object.keys(tool.parameters.properties) : [],
  }));
  const answer: Answer = { pieces: [], calls: [] };
  response.parts.forEach((part, index) => {
    if ("text" in part) answer.pieces.push({ content: part.text });
    else if ("thinking" in part) answer.pieces.push({ reasoning: part.thinking });
    else {
      const agentCall = toolCallFor(part.call, offered);
      const args = "input" in agentCall ? JSON.stringify(agentCall.input) : JSON.stringify({ input: agentCall.freeform });
      const call = { id: `call_${number}_${index}`, name: agentCall.name, arguments: args };
      answer.pieces.push({ call });
      answer.calls.push(call);
    }
  });
  return answer;
}

/** The streamed frames of an answer: reasoning, text and tool calls as deltas, then the finish, usage and [DONE]. */
function* frames(answer: Answer, id: string, model: string, usage: Json | undefined): Generator<string> {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Json, finish: string | null = null) =>
    sseFrame({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  yield chunk({ role: "assistant", content: "" });
  let index = 0;
  for (const piece of answer.pieces) {
    if ("reasoning" in piece) yield chunk({ reasoning_content: piece.reasoning });
    else if ("content" in piece) yield chunk({ content: piece.content });
    else {
      // The name first with the arguments' first half, then the rest, as the vendors stream them.
      const { call } = piece;
      const half = Math.floor(call.arguments.length / 2);
      yield chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments.slice(0, half) } }] });
      yield chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] });
      index++;
    }
  }
  yield chunk({}, answer.calls.length > 0 ? "tool_calls" : "stop");
  if (usage) yield sseFrame({ id, object: "chat.completion.chunk", created, model, choices: [], usage });
  yield sseFrame("[DONE]");
}

let completions = 0;

export const chatApi: ApiModule = {
  name: "chat",
  async handle(request, context) {
    // None of Qwen Code, OpenCode and Copilot CLI lists models (GET /v1/models), so that path is left to the
    // modules whose agents ask it (Codex and Anthropic's shapes differ).
    const url = new URL(request.url);
    if (request.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return undefined;
    const body = (await request.json().catch(() => ({}))) as Json;
    const recorded = recordChat(request, body);
    const taken = await context.take(recorded, request.signal);
    if ("fail" in taken) {
      const { status, message } = taken.fail;
      const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
      return Response.json({ error: { message, type, param: null, code: type } }, { status, headers: RETRY_AT_ONCE });
    }
    const response = taken.response;
    const number = String(++completions);
    const id = `chatcmpl-${number}`;
    const model = recorded.model ?? "gpt-4o";
    const answer = answerOf(response, recorded, toolsOf(body), body, number);
    const counts = usageOf(response, recorded);
    const usage = {
      prompt_tokens: counts.inputTokens,
      completion_tokens: counts.outputTokens,
      total_tokens: counts.inputTokens + counts.outputTokens,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    if (body.stream === true) {
      const include = isObject(body.stream_options) && body.stream_options.include_usage === true;
      return sseResponse(frames(answer, id, model, include ? usage : undefined), response.chunkDelayMs);
    }
    const content = answer.pieces.flatMap((piece) => ("content" in piece ? [piece.content] : [])).join("");
    const reasoning = answer.pieces.flatMap((piece) => ("reasoning" in piece ? [piece.reasoning] : [])).join("");
    return Response.json({
      id,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: content || (answer.calls.length > 0 ? null : ""),
            ...(reasoning ? { reasoning_content: reasoning } : {}),
            ...(answer.calls.length > 0
              ? { tool_calls: answer.calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }
              : {}),
          },
          logprobs: null,
          finish_reason: answer.calls.length > 0 ? "tool_calls" : "stop",
        },
      ],
      usage,
    });
  },
};

/**
 * The Anthropic Messages API, as Claude Code calls it (through claude-agent-acp): `POST /v1/messages`
 * (Claude Code adds `?beta=true`), streamed as SSE or answered as one JSON message, and
 * `POST /v1/messages/count_tokens`. A request that offers tools is a turn's request; one without is a
 * side call (Claude Code 2.1.185 makes one: the session title, asked as JSON by a schema), and so is a
 * token count.
 */
import type { OfferedTool, RecordedRequest, ScriptedResponse, ToolUse } from "./script.ts";
import { sseFrame, sseResponse, usageOf, type ApiModule } from "./scripted-provider.ts";
import { toolCallFor } from "./tools.ts";
import { isObject, type Json } from "./json.ts";

type Block = Json & { type?: string };

/** A message's content as blocks (a plain string is one text block). */
function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** The text of a tool result's content (a string, or text blocks). */
function resultText(content: unknown): string {
  return blocksOf(content)
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

/** What a Messages request carried: model, tools, the messages' text and tool results. */
function recordOf(request: Request, url: URL, body: Json, main: boolean): RecordedRequest {
  const texts: string[] = [];
  const toolResults: string[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    // Claude Code sends some of its system prompt as messages of role "system" (its agent list).
    if (message.role === "system") continue;
    for (const block of blocksOf(message.content)) {
      if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
      if (block.type === "tool_result") toolResults.push(resultText(block.content));
    }
  }
  return {
    api: "anthropic",
    method: request.method,
    path: url.pathname + url.search,
    model: typeof body.model === "string" ? body.model : null,
    main,
    tools: offeredTools(body).map((tool) => tool.name),
    text: texts.join("\n"),
    toolResults,
    betas: request.headers.get("anthropic-beta")?.split(",") ?? [],
    body,
  };
}

function offeredTools(body: Json): OfferedTool[] {
  return (Array.isArray(body.tools) ? body.tools.filter(isObject) : []).flatMap((tool) => (typeof tool.name === "string" ? [{ name: tool.name }] : []));
}

/** Anthropic's error type for an HTTP status. */
function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function errorResponse(status: number, message: string): Response {
  return Response.json(
    { type: "error", error: { type: errorType(status), message } },
    // Claude Code retries a 408, 409, 429 or 5xx ten times, backing off up to 32 s (about three minutes
    // in all, saying nothing over ACP meanwhile); this header of the API says not to, so it fails at once.
    { status, headers: { "request-id": randomId("req"), "x-should-retry": "false" } },
  );
}

const randomId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;

/** A response's content blocks in order: consecutive text (or thinking) chunks are one block. */
interface BlockPlan {
  block: Block;
  /** The streamed deltas of the block. */
  deltas: Json[];
}

/** How many tasks the conversation has created so far: Claude Code numbers a session's tasks 1, 2, 3… */
function tasksCreated(body: Json): number {
  let count = 0;
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isObject) : []) {
    for (const block of blocksOf(message.content)) if (block.type === "tool_use" && block.name === "TaskCreate") count++;
  }
  return count;
}

/**
 * The tool calls that carry out `use`. A plan where Claude Code offers no TodoWrite (its SDK sessions,
 * which claude-agent-acp runs, have the task tools instead) is one TaskCreate per entry, and a
 * TaskUpdate for each entry that is not pending, by the number the task will get.
 */
function callsFor(use: ToolUse, offered: OfferedTool[], body: Json): Array<{ name: string; input: Json }> {
  const names = new Set(offered.map((tool) => tool.name));
  if (use.op === "plan" && !names.has("TodoWrite") && names.has("TaskCreate") && names.has("TaskUpdate")) {
    const first = tasksCreated(body) + 1;
    return [
      ...use.entries.map((entry) => ({ name: "TaskCreate", input: { subject: entry.content, description: entry.content, activeForm: entry.content } })),
      ...use.entries.flatMap((entry, index) =>
        entry.status === "pending" ? [] : [{ name: "TaskUpdate", input: { taskId: String(first + index), status: entry.status } }],
      ),
    ];
  }
  const call = toolCallFor(use, offered);
  return [{ name: call.name, input: "input" in call ? call.input : { input: call.freeform } }];
}

function blockPlans(response: ScriptedResponse, offered: OfferedTool[], body: Json): BlockPlan[] {
  const plans: BlockPlan[] = [];
  for (const part of response.parts) {
    const last = plans.at(-1);
    if ("text" in part) {
      if (last?.block.type === "text") {
        last.block.text = `${last.block.text as string}${part.text}`;
        last.deltas.push({ type: "text_delta", text: part.text });
      } else plans.push({ block: { type: "text", text: part.text }, deltas: [{ type: "text_delta", text: part.text }] });
    } else if ("thinking" in part) {
      if (last?.block.type === "thinking") {
        last.block.thinking = `${last.block.thinking as string}${part.thinking}`;
        last.deltas.push({ type: "thinking_delta", thinking: part.thinking });
      } else plans.push({ block: { type: "thinking", thinking: part.thinking, signature: "" }, deltas: [{ type: "thinking_delta", thinking: part.thinking }] });
    } else {
      for (const call of callsFor(part.call, offered, body)) {
        const json = JSON.stringify(call.input);
        // The input arrives in two pieces, as the real API splits it (never inside a surrogate pair).
        let cut = Math.floor(json.length / 2);
        if (/[\uD800-\uDBFF]/.test(json.charAt(cut - 1))) cut--;
        plans.push({
          block: { type: "tool_use", id: randomId("toolu"), name: call.name, input: call.input },
          deltas: [
            { type: "input_json_delta", partial_json: json.slice(0, cut) },
            { type: "input_json_delta", partial_json: json.slice(cut) },
          ],
        });
      }
    }
  }
  // A thinking block ends with its signature, which Claude Code sends back on the next request.
  for (const plan of plans) {
    if (plan.block.type !== "thinking") continue;
    plan.block.signature = "scripted-signature";
    plan.deltas.push({ type: "signature_delta", signature: "scripted-signature" });
  }
  return plans;
}

/** The streamed block as it starts: a text or thinking block empty, a tool_use block with no input yet. */
function startedBlock(block: Block): Block {
  if (block.type === "text") return { type: "text", text: "" };
  if (block.type === "thinking") return { type: "thinking", thinking: "", signature: "" };
  return { ...block, input: {} };
}

/**
 * A side call that asks for JSON by a schema (Claude Code's title call asks for `{"title"}`) gets the
 * side text in every string field the schema names, as one JSON text.
 */
function structured(response: ScriptedResponse, body: Json): ScriptedResponse {
  const format = isObject(body.output_config) ? body.output_config.format : undefined;
  if (!isObject(format) || format.type !== "json_schema" || !isObject(format.schema)) return response;
  const text = response.parts.map((part) => ("text" in part ? part.text : "")).join("");
  const properties = isObject(format.schema.properties) ? format.schema.properties : {};
  const fields = Object.entries(properties).flatMap(([name, schema]) => (isObject(schema) && schema.type === "string" ? [[name, text]] : []));
  return { ...response, parts: [{ text: JSON.stringify(Object.fromEntries(fields)) }] };
}

function answer(scripted: ScriptedResponse, recorded: RecordedRequest, body: Json, offered: OfferedTool[]): Response {
  const response = recorded.main ? scripted : structured(scripted, body);
  const plans = blockPlans(response, offered, body);
  const usage = usageOf(response, recorded);
  const stopReason = plans.some((plan) => plan.block.type === "tool_use") ? "tool_use" : "end_turn";
  const message = {
    id: randomId("msg"),
    type: "message",
    role: "assistant",
    model: recorded.model ?? "claude-scripted",
    content: [] as Block[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 1,
      service_tier: "standard",
    },
  };
  if (body.stream !== true) {
    return Response.json(
      { ...message, content: plans.map((plan) => plan.block), stop_reason: stopReason, usage: { ...message.usage, output_tokens: usage.outputTokens } },
      { headers: { "request-id": randomId("req") } },
    );
  }
  function* frames(): Generator<string> {
    yield sseFrame({ type: "message_start", message }, "message_start");
    yield sseFrame({ type: "ping" }, "ping");
    for (const [index, plan] of plans.entries()) {
      yield sseFrame({ type: "content_block_start", index, content_block: startedBlock(plan.block) }, "content_block_start");
      for (const delta of plan.deltas) yield sseFrame({ type: "content_block_delta", index, delta }, "content_block_delta");
      yield sseFrame({ type: "content_block_stop", index }, "content_block_stop");
    }
    yield sseFrame(
      {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { input_tokens: usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: usage.outputTokens },
      },
      "message_delta",
    );
    yield sseFrame({ type: "message_stop" }, "message_stop");
  }
  const streamed = sseResponse(frames(), response.chunkDelayMs);
  streamed.headers.set("request-id", randomId("req"));
  return streamed;
}

export const anthropicApi: ApiModule = {
  name: "anthropic",
  async handle(request, context) {
    const url = new URL(request.url);
    if (request.method !== "POST" || (url.pathname !== "/v1/messages" && url.pathname !== "/v1/messages/count_tokens")) return undefined;
    let body: Json;
    try {
      const parsed: unknown = await request.json();
      if (!isObject(parsed)) throw new Error("not an object");
      body = parsed;
    } catch {
      return errorResponse(400, "the body is not a JSON object");
    }
    const counting = url.pathname === "/v1/messages/count_tokens";
    const offered = offeredTools(body);
    const recorded = recordOf(request, url, body, !counting && offered.length > 0);
    const taken = await context.take(recorded, request.signal);
    if ("fail" in taken) return errorResponse(taken.fail.status, taken.fail.message);
    if (counting) return Response.json({ input_tokens: usageOf(taken.response, recorded).inputTokens });
    try {
      return answer(taken.response, recorded, body, offered);
    } catch (error) {
      // A script asking for a tool the agent does not offer: said as the API says a bad request.
      return errorResponse(400, error instanceof Error ? error.message : String(error));
    }
  },
};

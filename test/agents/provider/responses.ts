/**
 * The OpenAI Responses API (`POST /v1/responses`), as Codex calls it: streamed as SSE over HTTPS, or
 * over the WebSocket transport Codex tries first (an upgrade on the same path; each `response.create`
 * message is answered with the same events as JSON text frames, an error as `{type: "error", status}`).
 * A response is its parts in order: reasoning (a summary streamed as deltas), assistant messages
 * (output_text deltas), function calls and custom (freeform) tool calls such as Codex's apply_patch;
 * `response.completed` carries usage. A follow-up request carries the outputs of the calls
 * (function_call_output, custom_tool_call_output), either with the whole input or, after
 * `previous_response_id`, with only the new items (Codex over a WebSocket); the recorded `text` and
 * `toolResults` then include the earlier response's conversation.
 *
 * Codex's quirks: each new WebSocket starts with a warm-up `response.create` with `generate: false`
 * (answered with an empty response; not recorded, takes nothing). Codex never closes the socket on a
 * cancel: it reads the cancelled response to its end before sending the next request on the same
 * socket, so after a cancel mid-stream the next turn waits for the rest of that response, and a hung
 * one (hang mode, `hang: true`) holds the next turn until the provider releases it (and whatever the
 * released request takes is read and dropped). Over HTTPS (`refuseWebSockets`) a cancel drops the request.
 */
import type { ServerWebSocket } from "bun";
import type { OfferedTool, Part, RecordedRequest, ScriptedResponse } from "./script.ts";
import { PROVIDER_MARKER, RETRY_AT_ONCE, sseFrame, sseResponse, usageOf, type ApiContext, type ApiModule, type SocketHandlers } from "./scripted-provider.ts";
import { toolCallFor } from "./tools.ts";
import type { Json } from "./json.ts";

type Item = Json & { type?: string };

const debug = process.env.PROVIDER_DEBUG ? (...args: unknown[]) => console.error(`[responses ${new Date().toISOString().slice(11, 23)}]`, ...args) : () => {};
let socketCount = 0;

/** The text of a message's content: a string, or its text parts (input_text, output_text, …). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part && typeof part === "object" && typeof (part as Json).text === "string" ? ((part as Json).text as string) : ""))
    .filter(Boolean)
    .join("\n");
}

/** A tool output as Codex sends it: a string, content items, or (older) `{content, success}`. */
function outputOf(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return textOf(output);
  if (output && typeof output === "object" && "content" in output) return outputOf((output as Json).content);
  return JSON.stringify(output ?? "");
}

/** The offered tools by name; a namespace (MCP servers) offers its tools as `namespace.name`, a built-in (web_search) by its type. */
function offeredTools(tools: unknown): OfferedTool[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: Item): OfferedTool[] => {
    if (tool.type === "namespace" && Array.isArray(tool.tools)) {
      return offeredTools(tool.tools).map((inner) => ({ ...inner, name: `${String(tool.name)}.${inner.name}` }));
    }
    const name = typeof tool.name === "string" ? tool.name : String(tool.type);
    return [tool.type === "custom" ? { name, custom: true } : { name }];
  });
}

/** What a response's conversation holds so far: the texts and tool outputs of its requests and its own output text. */
interface Context {
  texts: string[];
  toolResults: string[];
}
/**
 * Each response's conversation, by its id: a request with `previous_response_id` carries only the new
 * items (Codex over a WebSocket does so), and the rest of its conversation is the earlier response's.
 */
const contexts = new Map<string, Context>();
/** The conversation each recorded request carried (its `text` and `toolResults`, unjoined). */
const recordedContexts = new WeakMap<RecordedRequest, Context>();
const contextOf = (recorded: RecordedRequest): Context => recordedContexts.get(recorded) ?? { texts: [], toolResults: [] };

/**
 * What a Responses request carried (the body of a POST, or a `response.create` message). With
 * `previous_response_id`, the messages and tool outputs of the earlier response's conversation come
 * first, as the API counts them part of the request.
 */
function recordOf(body: Json, method: string, path: string): { recorded: RecordedRequest; offered: OfferedTool[] } {
  const offered = offeredTools(body.tools);
  const input: Item[] = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const earlier = typeof body.previous_response_id === "string" ? contexts.get(body.previous_response_id) : undefined;
  const texts: string[] = [...(earlier?.texts ?? [])];
  const toolResults: string[] = [...(earlier?.toolResults ?? [])];
  for (const item of input) {
    const type = item.type ?? (item.role ? "message" : undefined);
    // Developer messages are Codex's instructions (permissions, collaboration mode): system prompt, left out.
    if (type === "message" && (item.role === "user" || item.role === "assistant")) {
      const text = textOf(item.content);
      if (text) texts.push(text);
    } else if (type === "function_call_output" || type === "custom_tool_call_output" || type === "mcp_tool_call_output") {
      toolResults.push(outputOf(item.output));
    }
  }
  const recorded: RecordedRequest = {
    api: "responses",
    method,
    path,
    model: typeof body.model === "string" ? body.model : null,
    main: offered.length > 0,
    tools: offered.map((tool) => tool.name),
    text: texts.join("\n"),
    toolResults,
    body,
  };
  recordedContexts.set(recorded, { texts, toolResults });
  return { recorded, offered };
}

let nextId = 0;
const newId = (prefix: string) => `${prefix}_scripted${(++nextId).toString().padStart(6, "0")}`;

/**
 * The events of one response, in order, or the reason it cannot be made (no offered tool does an
 * operation the script asks for): the provider answers that as a failure, with the reason.
 */
function eventsOf(response: ScriptedResponse, recorded: RecordedRequest, offered: OfferedTool[]): Json[] | { error: string } {
  try {
    return [...streamOf(response, recorded, offered)];
  } catch (error) {
    const message = `${PROVIDER_MARKER}: cannot answer: ${error instanceof Error ? error.message : String(error)}`;
    console.error(`[responses] ${message}`);
    return { error: message };
  }
}

function* streamOf(response: ScriptedResponse, recorded: RecordedRequest, offered: OfferedTool[]): Generator<Json> {
  const id = newId("resp");
  const model = recorded.model ?? "gpt-5";
  const created_at = Math.floor(Date.now() / 1000);
  const shell = { id, object: "response", created_at, model, status: "in_progress", output: [] as Item[] };
  let sequence = 0;
  const event = (type: string, fields: Json): Json => ({ type, sequence_number: sequence++, ...fields });
  yield event("response.created", { response: shell });
  yield event("response.in_progress", { response: shell });

  const output: Item[] = [];
  // Consecutive parts of one kind make one output item: text one message, thinking one reasoning item.
  type Group = { kind: "text"; chunks: string[] } | { kind: "thinking"; chunks: string[] } | { kind: "call"; part: Extract<Part, { call: unknown }> };
  const groups: Group[] = [];
  for (const part of response.parts) {
    const last = groups.at(-1);
    if ("call" in part) groups.push({ kind: "call", part });
    else if ("text" in part) last?.kind === "text" ? last.chunks.push(part.text) : groups.push({ kind: "text", chunks: [part.text] });
    else last?.kind === "thinking" ? last.chunks.push(part.thinking) : groups.push({ kind: "thinking", chunks: [part.thinking] });
  }
  for (const group of groups) {
    const output_index = output.length;
    if (group.kind === "text") {
      const item_id = newId("msg");
      yield event("response.output_item.added", {
        output_index,
        item: { type: "message", id: item_id, status: "in_progress", role: "assistant", content: [] },
      });
      yield event("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const delta of group.chunks) yield event("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      const text = group.chunks.join("");
      yield event("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
      const part = { type: "output_text", text, annotations: [] };
      yield event("response.content_part.done", { item_id, output_index, content_index: 0, part });
      const item = { type: "message", id: item_id, status: "completed", role: "assistant", content: [part] };
      output.push(item);
      yield event("response.output_item.done", { output_index, item });
    } else if (group.kind === "thinking") {
      const item_id = newId("rs");
      yield event("response.output_item.added", { output_index, item: { type: "reasoning", id: item_id, summary: [] } });
      yield event("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
      for (const delta of group.chunks) yield event("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
      const text = group.chunks.join("");
      yield event("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text });
      yield event("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text } });
      const item = { type: "reasoning", id: item_id, summary: [{ type: "summary_text", text }] };
      output.push(item);
      yield event("response.output_item.done", { output_index, item });
    } else {
      const call = toolCallFor(group.part.call, offered);
      const call_id = newId("call");
      if ("freeform" in call) {
        const item_id = newId("ctc");
        yield event("response.output_item.added", {
          output_index,
          item: { type: "custom_tool_call", id: item_id, status: "in_progress", call_id, name: call.name, input: "" },
        });
        yield event("response.custom_tool_call_input.delta", { item_id, output_index, delta: call.freeform });
        yield event("response.custom_tool_call_input.done", { item_id, output_index, input: call.freeform });
        const item = { type: "custom_tool_call", id: item_id, status: "completed", call_id, name: call.name, input: call.freeform };
        output.push(item);
        yield event("response.output_item.done", { output_index, item });
      } else {
        const item_id = newId("fc");
        const args = JSON.stringify(call.input);
        yield event("response.output_item.added", {
          output_index,
          item: { type: "function_call", id: item_id, status: "in_progress", call_id, name: call.name, arguments: "" },
        });
        yield event("response.function_call_arguments.delta", { item_id, output_index, delta: args });
        yield event("response.function_call_arguments.done", { item_id, output_index, arguments: args });
        const item = { type: "function_call", id: item_id, status: "completed", call_id, name: call.name, arguments: args };
        output.push(item);
        yield event("response.output_item.done", { output_index, item });
      }
    }
  }

  const { inputTokens, outputTokens } = usageOf(response, recorded);
  const reasoning = groups.some((group) => group.kind === "thinking") ? Math.min(outputTokens, 5) : 0;
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: inputTokens + outputTokens,
  };
  const said = output.flatMap((item) => (item.type === "message" ? [textOf(item.content)] : []));
  contexts.set(id, { texts: [...contextOf(recorded).texts, ...said], toolResults: contextOf(recorded).toolResults });
  yield event("response.completed", { response: { ...shell, status: "completed", output, usage } });
}

/** The API's error body. */
const errorBody = (status: number, message: string) => ({
  error: {
    message,
    type: status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error",
    code: status === 429 ? "rate_limit_exceeded" : null,
    param: null,
  },
});

/** A response that completes at once with nothing in it: a `generate: false` warm-up request (its input is kept for the next). */
function* emptyResponse(body: Json): Generator<Json> {
  const model = body.model;
  const id = newId("resp");
  const { recorded } = recordOf(body, "", "");
  contexts.set(id, contextOf(recorded));
  const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model, status: "completed", output: [] };
  yield { type: "response.created", response: { ...response, status: "in_progress" } };
  yield {
    type: "response.completed",
    response: {
      ...response,
      usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
    },
  };
}

/** One WebSocket: its `response.create` messages are answered one after another, in order. */
function socketHandlers(context: ApiContext, path: string): SocketHandlers {
  const closed = new AbortController();
  const number = ++socketCount;
  debug(`socket ${number} upgraded`);
  let queue: Promise<void> = Promise.resolve();
  const send = (socket: ServerWebSocket<SocketHandlers>, data: Json) => {
    if (!closed.signal.aborted) socket.send(JSON.stringify(data));
  };
  async function answer(socket: ServerWebSocket<SocketHandlers>, message: Json): Promise<void> {
    debug(
      `socket ${number} message ${String(message.type)} prev=${String(message.previous_response_id)} generate=${String(message.generate)} inputs=${Array.isArray(message.input) ? message.input.length : "-"}`,
    );
    if (message.type !== "response.create") return; // response.processed and the like need no answer
    const { type: _type, ...body } = message;
    if (body.generate === false) {
      for (const event of emptyResponse(body)) send(socket, event);
      return;
    }
    const { recorded, offered } = recordOf(body, "WS", path);
    const taken = await context.take(recorded, closed.signal);
    if (closed.signal.aborted) return;
    if ("fail" in taken) {
      const { status, message: text } = taken.fail;
      send(socket, { type: "error", status, ...errorBody(status, text) });
      return;
    }
    const events = eventsOf(taken.response, recorded, offered);
    if (!Array.isArray(events)) {
      send(socket, { type: "error", status: 500, ...errorBody(500, events.error) });
      return;
    }
    for (const event of events) {
      if (taken.response.chunkDelayMs) await Bun.sleep(taken.response.chunkDelayMs);
      if (closed.signal.aborted) return;
      send(socket, event);
    }
  }
  return {
    message(socket, raw) {
      let message: Json;
      try {
        message = JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8"));
      } catch {
        return;
      }
      queue = queue
        .then(() => answer(socket, message))
        .catch((error: unknown) => {
          send(socket, { type: "error", status: 500, ...errorBody(500, String(error)) });
        });
    },
    close() {
      debug(`socket ${number} closed`);
      closed.abort();
    },
  };
}

/** What Codex asks of the provider besides responses: answered so it goes on with its bundled models. */
function other(request: Request, path: string): Response | undefined {
  if (request.method === "GET" && path === "/v1/models") {
    // Codex's model refresh (`?client_version=`) expects `{models: [...]}`; an empty list keeps its bundled presets.
    return Response.json({ models: [] });
  }
  return undefined;
}

export const responsesApi: ApiModule = {
  name: "responses",
  async handle(request, context) {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path !== "/v1/responses") {
      if (url.searchParams.has("client_version")) return other(request, path);
      if (path.startsWith("/v1/responses/")) {
        console.warn(`[responses] unknown path ${request.method} ${path}`);
        return Response.json(errorBody(404, `no ${path} here`), { status: 404 });
      }
      return undefined;
    }
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      const refusal = context.upgradeRefusal();
      if (refusal !== null) {
        debug(`upgrade refused with ${refusal}`);
        return Response.json(errorBody(refusal, `${PROVIDER_MARKER}: WebSockets are refused here`), { status: refusal });
      }
      const upgraded = context.server.upgrade(request, { data: socketHandlers(context, path) });
      return upgraded ? new Response(null, { status: 101 }) : Response.json(errorBody(400, "WebSocket upgrade failed"), { status: 400 });
    }
    if (request.method !== "POST") return Response.json(errorBody(405, `${request.method} ${path} is not answered`), { status: 405 });
    let body: Json;
    try {
      body = (await request.json()) as Json;
    } catch {
      return Response.json(errorBody(400, "the body is not JSON"), { status: 400 });
    }
    const encoder = (events: Iterable<Json>) =>
      (function* () {
        for (const event of events) yield sseFrame(event, event.type as string);
      })();
    if (body.generate === false) return sseResponse(encoder(emptyResponse(body)));
    const { recorded, offered } = recordOf(body, request.method, path + url.search);
    const taken = await context.take(recorded, request.signal);
    if ("fail" in taken) return Response.json(errorBody(taken.fail.status, taken.fail.message), { status: taken.fail.status, headers: RETRY_AT_ONCE });
    const events = eventsOf(taken.response, recorded, offered);
    if (!Array.isArray(events)) return Response.json(errorBody(500, events.error), { status: 500 });
    return sseResponse(encoder(events), taken.response.chunkDelayMs);
  },
};

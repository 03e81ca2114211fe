/**
 * The Gemini API (generativelanguage `v1beta`), as Gemini CLI calls it with `GOOGLE_GEMINI_BASE_URL`:
 * `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (SSE frames of GenerateContentResponse),
 * `:generateContent` (one JSON GenerateContentResponse) and `:countTokens`. Tool results come back as
 * `functionResponse` parts of a `user` content.
 *
 * A turn request is one that offers function declarations. Side calls offer none: Gemini CLI's JSON
 * side queries (BaseLlmClient.generateJson: the model router's classifier, a next-speaker check, loop
 * detection, edit correction) ask with `generationConfig.responseJsonSchema` and are answered with JSON
 * that fits the schema (a next-speaker check says the user speaks next, so the CLI ends its turn); the
 * others get the provider's short text.
 */
import type { ApiModule } from "./scripted-provider.ts";
import { RETRY_AT_ONCE, sseFrame, sseResponse, usageOf } from "./scripted-provider.ts";
import type { OfferedTool, RecordedRequest, ScriptedResponse } from "./script.ts";
import { toolCallFor } from "./tools.ts";
import { isObject, valueFor, type Json } from "./json.ts";

const PATH = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens|embedContent|batchEmbedContents)$/;

/** The function declarations a request offers, across its tools. */
function toolsOf(body: Json): OfferedTool[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.flatMap((tool) =>
    isObject(tool) && Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.flatMap((declaration) => (isObject(declaration) && typeof declaration.name === "string" ? [{ name: declaration.name }] : []))
      : [],
  );
}

function contentsOf(body: Json): Json[] {
  const contents = Array.isArray(body.contents) ? body.contents : isObject(body.contents) ? [body.contents] : [];
  return contents.filter(isObject);
}

function partsOf(content: Json): Json[] {
  return Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
}

/** The text of a function response: its `output` (or `error`) when it has one, else the whole response as JSON. */
function toolResultText(response: unknown): string {
  if (isObject(response)) {
    if (typeof response.output === "string") return response.output;
    if (typeof response.error === "string") return response.error;
    if (typeof response.content === "string") return response.content;
  }
  return typeof response === "string" ? response : JSON.stringify(response ?? null);
}

export function recordGemini(request: Request, body: Json, model: string): RecordedRequest {
  const url = new URL(request.url);
  const tools = toolsOf(body);
  const texts: string[] = [];
  const toolResults: string[] = [];
  for (const content of contentsOf(body)) {
    for (const part of partsOf(content)) {
      if (typeof part.text === "string" && part.thought !== true) texts.push(part.text);
      if (isObject(part.functionResponse)) toolResults.push(toolResultText(part.functionResponse.response));
    }
  }
  return {
    api: "gemini",
    method: request.method,
    path: url.pathname + url.search,
    model,
    main: tools.length > 0,
    tools: tools.map((tool) => tool.name),
    text: texts.join("\n"),
    toolResults,
    body,
  };
}

/** The JSON schema a side query asks its answer to fit, if it asks for JSON. */
function responseSchema(body: Json): unknown {
  const config = isObject(body.generationConfig) ? body.generationConfig : isObject(body.config) ? body.config : {};
  if (config.responseJsonSchema !== undefined) return config.responseJsonSchema;
  if (config.responseSchema !== undefined) return config.responseSchema;
  if (config.responseMimeType === "application/json") return {};
  return undefined;
}

type GeminiPart = { text: string; thought?: true } | { functionCall: { name: string; args: Record<string, unknown> } };

/** The parts of a scripted response, in Gemini's terms: a function call per tool use, by the offered tool. */
function geminiParts(response: ScriptedResponse, offered: OfferedTool[]): GeminiPart[] {
  return response.parts.map((part): GeminiPart => {
    if ("text" in part) return { text: part.text };
    if ("thinking" in part) return { text: part.thinking, thought: true };
    const call = toolCallFor(part.call, offered);
    const args = "input" in call ? call.input : { input: call.freeform };
    return { functionCall: { name: call.name, args } };
  });
}

function usageMetadata(response: ScriptedResponse, recorded: RecordedRequest) {
  const usage = usageOf(response, recorded);
  const thoughts = response.parts.filter((part) => "thinking" in part).length * 5;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens,
    thoughtsTokenCount: thoughts,
    totalTokenCount: usage.inputTokens + usage.outputTokens + thoughts,
  };
}

/** One GenerateContentResponse; the last one of a stream carries the finish reason and the usage. */
function chunk(parts: GeminiPart[], model: string, last: { usage: ReturnType<typeof usageMetadata> } | undefined): Json {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
    ...(last ? { usageMetadata: last.usage } : {}),
    modelVersion: model,
    responseId: "scripted",
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } }, { status, headers: RETRY_AT_ONCE });
}

export const geminiApi: ApiModule = {
  name: "gemini",
  async handle(request, context) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/v1beta/") && !/^\/v1(alpha)?\/models/.test(url.pathname)) return undefined;
    const match = PATH.exec(url.pathname);
    if (!match) {
      console.warn(`[gemini provider] unknown path ${request.method} ${url.pathname}${url.search}`);
      return errorResponse(404, `no such method: ${url.pathname}`);
    }
    const model = decodeURIComponent(match[2]!);
    const method = match[3]!;
    const body = ((await request.json().catch(() => ({}))) ?? {}) as Json;
    const recorded = recordGemini(request, body, model);

    if (method !== "streamGenerateContent" && method !== "generateContent") {
      // Not a turn (a token count, an embedding): recorded, never takes a scripted response.
      recorded.main = false;
      const outcome = await context.take(recorded, request.signal);
      if ("fail" in outcome) return errorResponse(outcome.fail.status, outcome.fail.message);
      if (method === "countTokens") {
        const asked = isObject(body.generateContentRequest) ? body.generateContentRequest : body;
        return Response.json({ totalTokens: Math.ceil(recordGemini(request, asked as Json, model).text.length / 4) });
      }
      const embedding = { values: Array.from({ length: 8 }, () => 0) };
      if (method === "embedContent") return Response.json({ embedding });
      return Response.json({ embeddings: (Array.isArray(body.requests) ? body.requests : [0]).map(() => embedding) });
    }

    const outcome = await context.take(recorded, request.signal);
    if ("fail" in outcome) return errorResponse(outcome.fail.status, outcome.fail.message);
    const { response } = outcome;
    const offered = toolsOf(body);
    const usage = usageMetadata(response, recorded);

    // A JSON side query gets JSON that fits its schema, whatever the script says.
    const schema = recorded.main ? undefined : responseSchema(body);
    const parts: GeminiPart[] = schema !== undefined ? [{ text: JSON.stringify(valueFor(schema)) }] : geminiParts(response, offered);

    if (method === "generateContent") {
      return Response.json(chunk(parts.length > 0 ? parts : [{ text: "" }], model, { usage }));
    }
    // Streamed: one frame a part, the last with the finish reason and the usage.
    const frames =
      parts.length === 0
        ? [sseFrame(chunk([{ text: "" }], model, { usage }))]
        : parts.map((part, index) => sseFrame(chunk([part], model, index === parts.length - 1 ? { usage } : undefined)));
    return sseResponse(frames, response.chunkDelayMs);
  },
};

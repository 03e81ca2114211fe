/**
 * The scripted model provider: one loopback server that speaks the vendor APIs the real agents call
 * (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini), well enough for whole turns.
 * A test queues responses (script.ts); each turn request of an agent (one that offers tools) takes the
 * next one, and side calls (titles, topic checks, token counts) get a short fixed answer. Every request
 * is recorded as the provider understood it, so a test can read what an agent sent (model, messages,
 * tool results). A failure or a hang can be set for every request, as a broken provider would.
 */
import type { Server, ServerWebSocket } from "bun";
import type { ApiName, RecordedRequest, ScriptedResponse } from "./script.ts";

/** Marks the provider's own error messages, so a test can tell them in what an agent shows. */
export const PROVIDER_MARKER = "atrium-conformance-provider";

/** What a WebSocket upgrade carries: the API module's handlers for that socket. */
export interface SocketHandlers {
  open?(socket: ServerWebSocket<SocketHandlers>): void;
  message(socket: ServerWebSocket<SocketHandlers>, message: string | Buffer): void;
  close?(socket: ServerWebSocket<SocketHandlers>): void;
}

/** What the provider gives an API module for one request. */
export interface ApiContext {
  server: Server<SocketHandlers>;
  /** The HTTP status a WebSocket upgrade is refused with; null while upgrades are accepted. */
  upgradeRefusal(): number | null;
  /**
   * Records the request, then waits out whatever the provider is set to (a delay, a hang, a failure)
   * and says what to answer: a scripted response for a turn request, a short text for a side call,
   * or a failure to render with the API's error body.
   */
  take(recorded: RecordedRequest, signal: AbortSignal): Promise<{ response: ScriptedResponse } | { fail: { status: number; message: string } }>;
}

/** One vendor API: answers the requests that are its own, and leaves the others (undefined). */
export interface ApiModule {
  name: ApiName;
  handle(request: Request, context: ApiContext): Promise<Response | undefined> | Response | undefined;
}

export interface ScriptedProvider {
  /** http://127.0.0.1:PORT, without a path. */
  readonly url: string;
  /** Queues responses for the next turn requests, in order. */
  script(...responses: ScriptedResponse[]): void;
  /** Responses still queued. */
  pending(): number;
  /** Drops the queued responses (a turn the agent ended before it asked for them). */
  clear(): void;
  /** Every request so far (side calls included), oldest first. */
  recorded(): RecordedRequest[];
  /** How many model requests have arrived so far (over HTTP or a WebSocket, side calls included). */
  requests(): number;
  /** The distinct "METHOD /path" lines seen since the last call. */
  takePaths(): string[];
  /**
   * `script`: queued responses, else a default reply; `fail`: every request fails with `status`
   * (400 unless given) and a message carrying PROVIDER_MARKER and the request's number; `hang`:
   * every request waits until the mode changes or it is aborted.
   */
  setMode(mode: "script" | "fail" | "hang", status?: number): void;
  /**
   * Refuses WebSocket upgrades (Codex's transport) with this status from now on, so the agent falls
   * back to SSE over HTTPS; null accepts them again. After a 503 Codex retries the upgrade a few
   * times, then falls back and says so in a warning ("Falling back from WebSockets to HTTPS
   * transport. …"), which codex-acp sends as reply text; after a 426 it falls back at once, silently.
   */
  refuseUpgrades(status: number | null): void;
  stop(): void;
}

/** The answer to a turn request when nothing is queued: says its number, so two replies differ. */
const defaultResponse = (number: number): ScriptedResponse => ({ parts: [{ text: `Scripted reply ${number}.` }] });
/** What a side call gets (a title, a topic check): short, and plausible as a title or as JSON-free text. */
const SIDE_RESPONSE: ScriptedResponse = { parts: [{ text: "Scripted title" }] };

export function startScriptedProvider(apis: ApiModule[]): ScriptedProvider {
  let mode: "script" | "fail" | "hang" = "script";
  let upgradeRefusal: number | null = null;
  let failStatus = 400;
  let count = 0;
  let paths = new Set<string>();
  const queue: ScriptedResponse[] = [];
  const log: RecordedRequest[] = [];
  const waiting = new Set<() => void>();
  const release = () => {
    for (const wake of [...waiting]) wake();
  };
  /** Until `release` or the request's abort. */
  const hold = (signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        waiting.delete(wake);
        resolve();
      };
      waiting.add(wake);
      signal.addEventListener("abort", wake);
    });

  const context = (number: number): Pick<ApiContext, "take"> => ({
    async take(recorded, signal) {
      log.push(recorded);
      while (mode === "hang" && !signal.aborted) await hold(signal);
      // A request its agent gave up on (a cancel) takes nothing from the script.
      if (signal.aborted) return { fail: { status: 499, message: `${PROVIDER_MARKER}: the request was aborted` } };
      if (mode === "fail") return { fail: { status: failStatus, message: `${PROVIDER_MARKER}: no model here (request ${number})` } };
      const response = recorded.main ? (queue.shift() ?? defaultResponse(number)) : SIDE_RESPONSE;
      if (response.delayMs) await Bun.sleep(response.delayMs);
      if (response.hang) await hold(signal);
      if (response.fail) return { fail: response.fail };
      return { response };
    },
  });

  const server: Server<SocketHandlers> = Bun.serve<SocketHandlers>({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // a held answer must not be cut off by the server's own idle limit
    async fetch(request) {
      const number = ++count;
      const url = new URL(request.url);
      paths.add(`${request.method} ${url.pathname}`);
      const ctx: ApiContext = { server, upgradeRefusal: () => upgradeRefusal, ...context(number) };
      for (const api of apis) {
        const answer = await api.handle(request, ctx);
        if (answer) return answer;
      }
      // Anthropic's SDK checks the address with HEAD /; anything else no module knows is a plain 404.
      return new Response(null, { status: request.method === "HEAD" ? 200 : 404 });
    },
    websocket: {
      open: (socket) => socket.data.open?.(socket),
      message: (socket, message) => socket.data.message(socket, message),
      close: (socket) => socket.data.close?.(socket),
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    script: (...responses) => void queue.push(...responses),
    pending: () => queue.length,
    clear: () => void queue.splice(0),
    recorded: () => [...log],
    requests: () => log.length,
    takePaths() {
      const taken = [...paths];
      paths = new Set();
      return taken;
    },
    refuseUpgrades(status) {
      upgradeRefusal = status;
    },
    setMode(next, status = 400) {
      mode = next;
      failStatus = status;
      if (next !== "hang") release();
    },
    stop() {
      release();
      void server.stop(true);
    },
  };
}

/**
 * Headers every failure carries: the vendors' SDKs honour them, so an agent retries a failing provider
 * at once rather than over minutes, and a suite that fails the provider on purpose stays quick.
 */
export const RETRY_AT_ONCE = { "retry-after-ms": "20", "retry-after": "1" };

/** Text/event-stream framing for the APIs that stream SSE; `event` is left out where the API has none. */
export function sseFrame(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** A streamed answer of SSE frames, made one at a time, `chunkDelayMs` apart. */
export function sseResponse(frames: Iterable<string>, chunkDelayMs = 0): Response {
  const iterator = frames[Symbol.iterator]();
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        if (chunkDelayMs > 0) await Bun.sleep(chunkDelayMs);
        controller.enqueue(encoder.encode(next.value));
      },
    }),
    { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
  );
}

/** Made-up counts for a response that names none: a few tokens per part and per 1,000 characters asked. */
export function usageOf(response: ScriptedResponse, recorded: RecordedRequest): { inputTokens: number; outputTokens: number } {
  return response.usage ?? { inputTokens: 100 + Math.ceil(recorded.text.length / 4), outputTokens: 10 * Math.max(response.parts.length, 1) };
}

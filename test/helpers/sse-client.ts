import type { EventRecord } from "../../src/schemas/events.ts";
import type { TestServer } from "./test-server.ts";

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A real Server-Sent Events client over fetch: parses frames as they arrive and lets a test wait for
 * a number of them. Comments (heartbeats) are counted separately.
 */
export class SseClient {
  readonly frames: SseFrame[] = [];
  comments = 0;
  status = 0;
  closed = false;
  /** Told of each frame as it arrives (a client that acts on what it is sent). */
  onFrame?: (frame: SseFrame) => void;
  private waiters: Array<() => void> = [];
  private readonly abort = new AbortController();
  readonly ready: Promise<void>;

  constructor(url: string, headers: Record<string, string>) {
    this.ready = this.run(url, headers);
  }

  private async run(url: string, headers: Record<string, string>): Promise<void> {
    const response = await fetch(url, { headers, signal: this.abort.signal });
    this.status = response.status;
    if (!response.ok || !response.body) {
      this.closed = true;
      return;
    }
    void this.read(response.body);
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close(), or the server cut the stream
    }
    this.closed = true;
    this.notify();
  }

  private parse(block: string): void {
    const frame: SseFrame = { data: "" };
    let hasData = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments++;
        this.notify();
      } else if (line.startsWith("id: ")) frame.id = line.slice(4);
      else if (line.startsWith("event: ")) frame.event = line.slice(7);
      else if (line.startsWith("data: ")) {
        frame.data += line.slice(6);
        hasData = true;
      }
    }
    if (hasData) {
      this.frames.push(frame);
      this.onFrame?.(frame);
      this.notify();
    }
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  /** Resolves once `count` frames have arrived (or the stream closed), failing after `timeoutMs`. */
  async waitForFrames(count: number, timeoutMs = 5000): Promise<SseFrame[]> {
    await this.waitUntil(
      () => this.frames.length >= count,
      () => `got ${this.frames.length} of ${count} frames in ${timeoutMs} ms`,
      timeoutMs,
    );
    return this.frames.slice(0, count);
  }

  /** Resolves with the first frame that matches once it has arrived, failing after `timeoutMs`. */
  async waitFor(match: (frame: SseFrame) => boolean, timeoutMs = 5000): Promise<SseFrame> {
    await this.waitUntil(
      () => this.frames.some(match),
      () => `no matching frame among ${this.frames.length} in ${timeoutMs} ms`,
      timeoutMs,
    );
    const found = this.frames.find(match);
    if (!found) throw new Error("the stream closed before a matching frame arrived");
    return found;
  }

  /** Resolves once `count` comments (the connected line, heartbeats) have arrived. */
  async waitForComments(count: number, timeoutMs = 5000): Promise<void> {
    await this.waitUntil(
      () => this.comments >= count,
      () => `got ${this.comments} of ${count} comments in ${timeoutMs} ms`,
      timeoutMs,
    );
  }

  private async waitUntil(done: () => boolean, failure: () => string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done() && !this.closed) {
      if (Date.now() > deadline) throw new Error(failure());
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(50)]);
    }
  }

  close(): void {
    this.abort.abort();
  }
}

/**
 * Every event logged after `after` up to the log's cursor now, read through the stream's replay as a
 * client reads it: done when the newest has arrived, not after a guessed time. The cursor is the
 * highest id ever stored: when compaction removed everything up to it, nothing is there to arrive (a
 * test that deletes the session holding the newest events reads before the delete).
 */
export async function replayedEvents(server: Pick<TestServer, "url" | "token" | "json">, after: number): Promise<EventRecord[]> {
  const { cursor, horizon } = (await server.json<{ cursor: number; horizon: number }>("GET", "/v1/events/cursor")).body;
  if (cursor <= Math.max(after, horizon)) return [];
  const client = new SseClient(`${server.url}/v1/events/stream?after=${after}`, { authorization: `Bearer ${server.token}` });
  await client.ready;
  try {
    await client.waitFor((frame) => Number(frame.id) >= cursor);
  } finally {
    client.close();
  }
  return client.frames.filter((frame) => Number(frame.id) <= cursor).map((frame) => JSON.parse(frame.data) as EventRecord);
}

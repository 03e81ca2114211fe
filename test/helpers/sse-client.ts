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
      if (line.startsWith(":")) this.comments++;
      else if (line.startsWith("id: ")) frame.id = line.slice(4);
      else if (line.startsWith("event: ")) frame.event = line.slice(7);
      else if (line.startsWith("data: ")) {
        frame.data += line.slice(6);
        hasData = true;
      }
    }
    if (hasData) {
      this.frames.push(frame);
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
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length < count && !this.closed) {
      if (Date.now() > deadline) throw new Error(`got ${this.frames.length} of ${count} frames in ${timeoutMs} ms`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(50)]);
    }
    return this.frames.slice(0, count);
  }

  close(): void {
    this.abort.abort();
  }
}

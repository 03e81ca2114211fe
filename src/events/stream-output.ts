import { constants, createGzip, type Gzip } from "node:zlib";

/** The encodings the event stream is sent in besides its own bytes. */
export type StreamEncoding = "gzip";

/**
 * Where an event stream's bytes go: to the socket as they are, or through one compressor per
 * connection. `write` may hold bytes back; `flush` sends everything written so far, decodable by
 * the client at once, and is called wherever the plain stream is flushed.
 */
export interface StreamOutput {
  write(chunk: Uint8Array): Promise<void>;
  flush(): Promise<void>;
  /** Whether a graceful end has something to send (gzip's trailer, without which a client reports an error). */
  readonly endsWithTrailer: boolean;
  /** Sends what ends the encoding; the caller closes the response. */
  end(): Promise<void>;
  /** Frees the compressor's memory; safe at any time, more than once. */
  dispose(): void;
}

export function streamOutput(controller: ReadableStreamDirectController, encoding: StreamEncoding | undefined): StreamOutput {
  return encoding === "gzip" ? new GzipOutput(controller) : new PlainOutput(controller);
}

class PlainOutput implements StreamOutput {
  readonly endsWithTrailer = false;

  constructor(private readonly controller: ReadableStreamDirectController) {}

  async write(chunk: Uint8Array): Promise<void> {
    await this.controller.write(chunk);
  }

  async flush(): Promise<void> {
    await this.controller.flush();
  }

  async end(): Promise<void> {}

  dispose(): void {}
}

/**
 * gzip at level 6 with a 16 KiB window and memLevel 5: about 80 KiB of deflate state per connection
 * instead of the default 256 KiB, for 0.13 of the raw bytes instead of 0.12 on a streaming reply with
 * tool calls (`stream-compression`, retired from bench/: docs/performance.md); a smaller window loses the repeated
 * `session.updated` records (0.18 at 8 KiB).
 */
export const STREAM_GZIP = { level: 6, windowBits: 14, memLevel: 5 } as const;

/** Sent without a flush once this much is waiting, so that a long replay is not held whole in memory. */
const BATCH_BYTES = 64 * 1024;

/**
 * gzip over one connection. Events are compressed in batches (what the writer loop writes between
 * two flushes) and every flush is a Z_SYNC_FLUSH: the client's decoder gets each event whole as soon
 * as it is sent, while the window still spans earlier events, which is where the saving comes from
 * (the field names and ids repeat from event to event).
 */
class GzipOutput implements StreamOutput {
  readonly endsWithTrailer = true;
  private readonly gzip: Gzip = createGzip(STREAM_GZIP);
  private readonly output: Buffer[] = [];
  private batch: Uint8Array[] = [];
  private batchBytes = 0;
  private failure: Error | undefined;
  private busy = false;
  private disposed = false;

  constructor(private readonly controller: ReadableStreamDirectController) {
    this.gzip.on("data", (chunk: Buffer) => this.output.push(chunk));
    this.gzip.on("error", (error: Error) => {
      this.failure = error;
    });
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.batch.push(chunk);
    this.batchBytes += chunk.byteLength;
    if (this.batchBytes >= BATCH_BYTES) await this.send();
  }

  async flush(): Promise<void> {
    await this.send();
    await this.controller.flush();
  }

  async end(): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      this.gzip.once("end", resolve);
      this.gzip.once("close", resolve);
    });
    await this.send();
    this.busy = true;
    try {
      this.gzip.end();
      await ended;
    } finally {
      this.busy = false;
    }
    await this.writeOutput();
    await this.controller.flush();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Closed only between operations: the callback of one in progress must still come.
    if (!this.busy) this.gzip.close();
  }

  private takeBatch(): Uint8Array[] {
    const batch = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    return batch;
  }

  private async send(): Promise<void> {
    if (this.batchBytes === 0) return;
    this.busy = true;
    try {
      for (const chunk of this.takeBatch()) this.gzip.write(chunk);
      await new Promise<void>((resolve) => this.gzip.flush(constants.Z_SYNC_FLUSH, resolve));
    } finally {
      this.busy = false;
      if (this.disposed) this.gzip.close();
    }
    await this.writeOutput();
  }

  private async writeOutput(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.output.length === 0) return;
    const bytes = this.output.length === 1 ? this.output[0]! : Buffer.concat(this.output);
    this.output.length = 0;
    await this.controller.write(bytes);
  }
}
